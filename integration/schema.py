from drf_spectacular.extensions import OpenApiAuthenticationExtension


class IntegrationKeyScheme(OpenApiAuthenticationExtension):
    """The integration API key in the OpenAPI document: `Authorization: Bearer <api_key>`."""

    target_class = "integration.authentication.IntegrationKeyAuthentication"
    name = "integrationApiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "integration_create가 발급한 API 키"}
