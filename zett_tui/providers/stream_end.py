"""A streamed answer that did not end with its protocol's own end signal is not an answer.

Each protocol says when an answer is complete: Anthropic's Messages stream with ``message_stop``,
Chat Completions with a ``finish_reason`` (and ``data: [DONE]``). A stream that just stops (a proxy
closed it cleanly), or that carries an error event after some text (Anthropic's
``overloaded_error``, an OpenAI or SGLang ``{"error": ...}`` chunk, vLLM's ``{"object": "error"}``),
looks finished to a reader that only waits for the end of the body. zett's stream readers
(``chat_stream``, ``messages_stream``) raise :class:`IncompleteStream` instead, so the turn fails:
the screen says why with the provider's own words, the session records it as failed with what was
shown, and ``zett -p`` exits 1.
"""

from __future__ import annotations

from zett_agent.providers.base import ProviderResponseError

__all__ = ["IncompleteStream", "cut_off", "failed_midway"]


class IncompleteStream(ProviderResponseError):
    """The stream ended without its end signal, or with an error event.

    Attributes:
        kind: ``"cut_off"`` (the body ended early) or ``"error"`` (the provider sent an error).
        provider_message: The provider's own words for an error, else empty.
        error_type: The provider's error type or code (``overloaded_error``), else empty.
        status_code: The HTTP status the error event stands for, when it names one, so that a
            failure before any output is retried like the same status would be (529, 5xx, 429).
        sentence: What happened, without the provider's name (``describe_error`` puts it first).
    """

    def __init__(
        self,
        sentence: str,
        *,
        kind: str,
        provider_message: str = "",
        error_type: str = "",
        status_code: int | None = None,
    ) -> None:
        super().__init__(f"The provider {sentence}")  # what a session file records as the error
        self.sentence = sentence
        self.kind = kind
        self.provider_message = provider_message
        self.error_type = error_type
        self.status_code = status_code


def cut_off(signal: str) -> IncompleteStream:
    """The body ended without ``signal`` (``message_stop``; ``finish_reason or [DONE]``)."""
    return IncompleteStream(
        f"ended the stream without its end signal ({signal}), so the answer is cut off; try again.",
        kind="cut_off",
    )


#: HTTP statuses that error types stand for, so the retry before any output treats them alike.
_STATUS_OF_TYPE = {
    "overloaded_error": 529,
    "api_error": 500,
    "rate_limit_error": 429,
    "server_error": 500,
    "timeout_error": 504,
}


def failed_midway(
    message: str, error_type: str = "", code: object = None, *, answered: bool = True
) -> IncompleteStream:
    """The provider sent an error event in the stream (``message`` in its own words);
    ``answered``: after some of the answer (else it was all the stream held)."""
    status = code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600 else None
    if status is None:
        status = _STATUS_OF_TYPE.get(error_type)
    shown = " ".join((message or "no message given").split())
    kind = f" ({error_type})" if error_type and error_type not in shown else ""
    sentence = (
        f"stopped the answer with an error: {shown}{kind}; the answer is incomplete."
        if answered
        else f"answered with an error instead of an answer: {shown}{kind}."
    )
    return IncompleteStream(
        sentence,
        kind="error",
        provider_message=message,
        error_type=error_type,
        status_code=status,
    )
