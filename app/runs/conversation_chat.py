"""A conversation's kept chat settings as the run service's ``ChatSettings`` and back, for both front ends:
what a sent message keeps (``stored_from``), what ``parley chat -c ID`` continues with when a flag does not say
otherwise (``with_stored``), and which kept values the provider now in use cannot take (``unsupported_kept``),
so the terminal can say it is not sending them instead of failing or dropping them silently.
"""

from __future__ import annotations

from dataclasses import replace

from app.runs.chat_turn import ChatSettings, ChatTarget
from app.settings import Settings
from app.storage.chat_settings import StoredChatSettings
from orchestration.providers.chat_controls import chat_controls


def tools_spec(tools: tuple[str, ...] | None) -> str | tuple[str, ...]:
    """A kept tool list as ``ChatSettings.tools``: None is every tool, an empty list none."""
    return "all" if tools is None else tuple(tools)


def stored_tools(spec: str | tuple[str, ...]) -> tuple[str, ...] | None:
    if isinstance(spec, tuple):
        return spec
    if spec == "all":
        return None
    return () if spec == "none" else tuple(n.strip() for n in spec.split(",") if n.strip())


def stored_from(chat: ChatSettings, target: ChatTarget) -> StoredChatSettings:
    """What a message sent with ``chat`` to ``target`` leaves as the conversation's settings."""
    return StoredChatSettings(provider=target.config.id, model=target.model, system_prompt=chat.system or None,
                              tools=stored_tools(chat.tools), reasoning_effort=chat.reasoning_effort,
                              temperature=chat.temperature, max_output_tokens=chat.max_output_tokens)


def with_stored(chat: ChatSettings, kept: StoredChatSettings, settings: Settings, *,
                provider_given: bool, tools_given: bool) -> ChatSettings:
    """``chat`` (from flags) completed by the conversation's kept settings wherever a flag did not say.

    The kept provider applies only when no flag names a provider and it is still configured (a one-off provider
    from ``--base-url`` is not kept in the settings); its kept model only with it, unless ``--model`` is given.
    """
    changes: dict[str, object] = {}
    if not provider_given and kept.provider and settings.provider(kept.provider) is not None:
        changes["provider"] = kept.provider
        if chat.model is None and kept.model:
            changes["model"] = kept.model
    if chat.system is None and kept.system_prompt:
        changes["system"] = kept.system_prompt
    if not tools_given and kept.tools is not None:
        changes["tools"] = tools_spec(kept.tools)
    if chat.reasoning_effort is None and kept.reasoning_effort not in (None, "off"):
        changes["reasoning_effort"] = kept.reasoning_effort
    if chat.temperature is None and kept.temperature is not None:
        changes["temperature"] = kept.temperature
    if chat.max_output_tokens is None and kept.max_output_tokens is not None:
        changes["max_output_tokens"] = kept.max_output_tokens
    return replace(chat, **changes)  # type: ignore[arg-type]  # each value fits the field it is keyed by


def unsupported_kept(chat: ChatSettings, given: ChatSettings, target: ChatTarget) -> tuple[ChatSettings, list[str]]:
    """Leave out the kept values (those in ``chat`` but not in ``given``, the flags) that ``target`` cannot take;
    returns the settings to send and one notice per value left out."""
    controls = chat_controls(target.config, target.model, chat.reasoning_effort)
    changes: dict[str, object] = {}
    notices = []
    if given.reasoning_effort is None and chat.reasoning_effort is not None and controls.reasoning_effort:
        changes["reasoning_effort"] = None
        notices.append(f"not sending the conversation's reasoning effort {chat.reasoning_effort}: "
                       f"{controls.reasoning_effort}")
        controls = chat_controls(target.config, target.model, None)
    if given.temperature is None and chat.temperature is not None and controls.temperature:
        changes["temperature"] = None
        notices.append(f"not sending the conversation's temperature {chat.temperature:g}: {controls.temperature}")
    if given.max_output_tokens is None and chat.max_output_tokens is not None and controls.max_output_tokens:
        changes["max_output_tokens"] = None
        notices.append(f"not sending the conversation's output limit {chat.max_output_tokens}: "
                       f"{controls.max_output_tokens}")
    return replace(chat, **changes), notices  # type: ignore[arg-type]  # None, which every field takes
