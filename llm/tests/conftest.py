from llm.testing import offline_model, scripted_model  # noqa: F401
