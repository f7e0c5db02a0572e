"""Vision per provider and model family: the capability the run service checks before an image is sent."""

from __future__ import annotations

import pytest

from orchestration.providers.presets import PRESETS


@pytest.mark.parametrize(("preset", "model", "vision"), [
    ("openai", "gpt-4o-mini", True), ("openai", "gpt-5", True), ("openai", "gpt-3.5-turbo", False),
    ("openai", "gpt-4-0613", False), ("openai", "o3-mini", False), ("openai-responses", "o1-mini", False),
    ("anthropic", "claude-3-5-haiku-latest", True), ("anthropic", "claude-sonnet-4-5", True),
    ("gemini", "gemini-2.0-flash", True), ("gemini", "gemini-2.5-pro", True),
    ("ollama-native", "llava:7b", True), ("ollama-native", "gemma3:12b", True), ("ollama-native", "gemma3:1b", False),
    ("ollama-native", "qwen3:8b", False), ("ollama", "qwen2.5vl:7b", True),
    ("cohere", "command-a-vision-07-2025", True), ("cohere", "command-a-03-2025", False),
    ("openrouter", "anthropic/claude-sonnet-4.5", True), ("openrouter", "deepseek/deepseek-chat", False),
    ("groq", "meta-llama/llama-4-scout-17b-16e-instruct", True), ("groq", "llama-3.3-70b-versatile", False),
    ("xai", "grok-4", True), ("xai", "grok-3-mini", False), ("mistral", "pixtral-large-latest", True),
    ("mistral", "mistral-small-2501", False), ("deepseek", "deepseek-chat", False), ("custom", "anything", False),
])
def test_vision_follows_the_model_family(preset: str, model: str, vision: bool):
    assert PRESETS[preset].capabilities.for_model(model).vision is vision


def test_openai_text_only_reasoning_models_keep_no_temperature():
    for preset in ("openai", "openai-responses"):
        caps = PRESETS[preset].capabilities.for_model("o3-mini")
        assert caps.vision is False and caps.temperature is False
