"""The engine tests' stand-in server and model file, for the window tests that run the built-in engine."""

from tests.app.engine.conftest import fake_python, model_file  # noqa: F401  # fixtures
