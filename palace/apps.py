from django.apps import AppConfig


class PalaceConfig(AppConfig):
    name = "palace"
    verbose_name = "Memory palace"
