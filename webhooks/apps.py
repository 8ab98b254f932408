from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"

    def ready(self) -> None:
        from memory_site.events import memory_event_handler_register
        from memory_site.settings_sections import settings_section_register
        from webhooks.services.outbox import event_record
        from webhooks.web import webhooks_section

        memory_event_handler_register(event_record)
        settings_section_register(template="webhooks/_settings.html", context=webhooks_section)
