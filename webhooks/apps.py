from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"

    def ready(self) -> None:
        from memory_site.events import memory_event_handler_register
        from webhooks.services.outbox import event_record

        memory_event_handler_register(event_record)
