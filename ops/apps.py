from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "Operations: job runs"

    def ready(self) -> None:
        # Celery signal receivers that record every task run as a JobRun row.
        from ops import signals  # noqa: F401
