from django.apps import AppConfig


class EpisodicConfig(AppConfig):
    name = "episodic"
    verbose_name = "Episodic memory"

    def ready(self) -> None:
        from episodic import checks  # noqa: F401  (registers the embedding checks)
        from episodic.models import ContextEntry, Episode, TypedMemory
        from episodic.vector_tables import register

        register(Episode, text_field="summary", index_name="episode_embedding_hnsw")
        register(TypedMemory, text_field="content", index_name="typed_embedding_hnsw")
        register(ContextEntry, text_field="content", index_name="context_entry_embedding_hnsw")
