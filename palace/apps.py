from django.apps import AppConfig


class PalaceConfig(AppConfig):
    name = "palace"
    verbose_name = "Memory palace"

    def ready(self) -> None:
        from episodic.vector_tables import register
        from palace.models import Drawer

        register(Drawer, text_field="content", index_name="drawer_embedding_hnsw")
