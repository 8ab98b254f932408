from django.apps import AppConfig


class EpisodicConfig(AppConfig):
    name = "episodic"
    verbose_name = "Episodic memory"
