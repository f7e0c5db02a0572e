"""error_from_response and stream_error_from_frame: the typed error and the message a user can act on."""

from __future__ import annotations

import pytest

from orchestration.errors import (
    AuthenticationError,
    BadRequestError,
    ProviderError,
    ServerError,
    error_from_response,
    stream_error_from_frame,
)


def test_messages_name_the_provider_and_where_to_check() -> None:
    error = error_from_response("Anthropic", 401, '{"type":"error","error":{"type":"authentication_error",'
                                                  '"message":"invalid x-api-key"}}')
    assert type(error) is AuthenticationError and not error.retryable
    assert error.user_message == ("The Anthropic API key was rejected (401). Check it in Preferences > Providers. "
                                  "The provider said: invalid x-api-key")
    assert error.provider_code == "authentication_error"


def test_gemini_bad_key_400_is_an_authentication_error() -> None:
    body = '{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}'
    error = error_from_response("Google Gemini", 400, body)
    assert type(error) is AuthenticationError and error.status == 400
    assert error.message.startswith("The Google Gemini API key was rejected (400). Check it in")
    other = error_from_response("Google Gemini", 400, '{"error": {"message": "bad field"}}')
    assert type(other) is BadRequestError


@pytest.mark.parametrize(("status", "error_type", "text"), [
    (418, ProviderError, "P returned HTTP 418."),
    (507, ServerError, "P had a server error (507). Try again later."),
])
def test_statuses_without_their_own_message(status: int, error_type: type, text: str) -> None:
    error = error_from_response("P", status, "")
    assert type(error) is error_type and error.message == text


def test_nameless_provider() -> None:
    assert error_from_response("", 404, None).message.startswith("The provider does not know this model")


@pytest.mark.parametrize(("frame", "hint"), [
    ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "try again shortly."),
    ({"error": {"code": "insufficient_quota", "message": "quota"}}, "Check your plan and billing."),
    ({"error": {"code": "rate_limit_exceeded", "message": "slow"}}, "Wait a moment and try again."),
    ({"error": {"type": "weird", "message": "odd"}}, None),
])
def test_stream_error_frames_get_a_hint(frame: dict, hint: str | None) -> None:
    error = stream_error_from_frame("X", frame)
    assert error.message.startswith("X reported an error during the answer: ")
    if hint:
        assert error.message.endswith(hint)
    else:
        assert error.message == "X reported an error during the answer: odd"
