from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "retention"
    verbose_name = "개인정보 보존·파기"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from retention.services import customer_data_erase, customer_data_export
        from tickets.hooks import data_request_runner_register

        data_request_runner_register(
            "ACCESS", lambda *, customer_id, actor_label: customer_data_export(customer_id=customer_id)
        )
        data_request_runner_register("ERASURE", customer_data_erase)
