from django.apps import AppConfig


class EpisodicConfig(AppConfig):
    name = "episodic"
    verbose_name = "Episodic memory"

    def ready(self) -> None:
        from episodic import checks  # noqa: F401  (registers the embedding checks)
