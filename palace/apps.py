from django.apps import AppConfig


class PalaceConfig(AppConfig):
    name = "palace"
    verbose_name = "Memory palace"

    def ready(self) -> None:
        from episodic.vector_tables import register
        from palace.models import Drawer, Passage

        register(Drawer, text_field="content", index_name="drawer_embedding_hnsw")
        register(Passage, text_field="text", index_name="passage_embedding_hnsw")

        from memory_site.events import memory_event_handler_register
        from palace.services.activity import maintenance_activity_record

        memory_event_handler_register(maintenance_activity_record)
