"""The LLM extractor: instructor (TOOLS mode) over the OpenAI client, against any OpenAI-compatible
endpoint. The only module of the digest that imports instructor.

Retries are bounded and split by cause: instructor re-asks (with the validation error) when the output
fails the pydantic models, up to `validation_retries` times; timeouts, connection errors, 429 and 5xx
are retried here up to `transient_retries` times with a doubling pause. Anything else fails at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import instructor
import openai
from instructor.core import InstructorRetryException
from pydantic import ValidationError as PydanticValidationError

from .config import DigestConfig
from .events import EVENT_PREDICATES, event_draft
from .extractor import ExtractionRequest, ExtractorError, WindowRequest
from .held import HELD_LIMIT
from .model import Draft, JournalEntry
from .prompts.extract_claims import Extraction, ExtractedClaim, build_messages
from factledger.ledger.when import resolve_time_phrase

_TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes: instructor wraps the client's error, which wraps httpx's."""
    links: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in links:
        links.append(seen)
        seen = seen.__cause__ or seen.__context__
    return links


def _transient(links: list[BaseException]) -> BaseException | None:
    for link in links:
        if isinstance(link, _TRANSIENT) or isinstance(link, httpx.TransportError):
            return link
        if isinstance(link, openai.APIStatusError) and link.status_code >= 500:
            return link
    return None


def _first(links: list[BaseException], kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    return next((link for link in links if isinstance(link, kinds)), None)


class LLMExtractor:
    """Proposals from a chat model through instructor's TOOLS mode, one call per window of turns."""

    def __init__(self, config: DigestConfig, *, sleep: Callable[[float], None] = time.sleep):
        if not config.model:
            raise ExtractorError("no model configured", kind="refused")
        self.config = config
        self.name = f"llm:{config.model}"
        self.window_turns = config.window_turns
        self.window_chars = config.window_chars
        self.held_limit = HELD_LIMIT  # the held facts shown per call, retrieved for the window (digest/held.py)
        self._sleep = sleep
        # max_retries=0 on the client: transient retries are counted here, in one place.
        client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "not-needed",
            timeout=config.timeout,
            max_retries=0,
        )
        self._client = instructor.from_openai(client, mode=instructor.Mode.TOOLS)

    def _call(self, request: WindowRequest) -> Extraction:
        # The held facts the window talks about (the digester retrieves them: `held_limit`); a request
        # built without them (a caller of its own) shows the newest of `current` instead.
        held = request.held if request.held is not None else list(request.current)[: self.held_limit]
        messages = build_messages(request.entries, request.recent, held, request.predicates)
        attempts = 0
        while True:
            attempts += 1
            try:
                return self._client.chat.completions.create(
                    model=self.config.model,
                    response_model=Extraction,
                    messages=messages,  # type: ignore[arg-type]
                    max_retries=self.config.validation_retries,
                    temperature=0,
                )
            except Exception as exc:  # instructor and openai raise many types; classify by the chain
                links = _chain(exc)
                transient = _transient(links)
                if transient is not None:
                    if attempts <= self.config.transient_retries:
                        self._sleep(self.config.retry_backoff * (2 ** (attempts - 1)))
                        continue
                    raise ExtractorError(
                        f"model endpoint unavailable after {attempts} attempt(s): {type(transient).__name__}: {_short(transient)}",
                        kind="unavailable",
                        attempts=attempts,
                    ) from None
                refused = _first(links, (openai.APIStatusError,))
                if refused is not None:
                    raise ExtractorError(f"model endpoint refused the request: {_short(refused)}", kind="refused") from None
                invalid = _first(links, (PydanticValidationError, ValueError, InstructorRetryException))
                if invalid is not None:
                    raise ExtractorError(
                        f"model output stayed invalid after {self.config.validation_retries + 1} attempt(s): {_short(invalid)}",
                        kind="invalid_output",
                        attempts=attempts,
                    ) from None
                raise ExtractorError(f"model call failed: {type(exc).__name__}: {_short(exc)}", kind="refused") from None

    def extract(self, request: ExtractionRequest) -> list[Draft]:
        """One turn: a window of one."""
        window = WindowRequest(entries=[request.entry], recent=request.recent, current=request.current,
                               predicates=request.predicates, held=request.held)
        return self.extract_window(window).get(request.entry.id, [])

    def extract_window(self, request: WindowRequest) -> dict[int, list[Draft]]:
        # Only the user's own word is evidence: an assistant turn is context, never a source (a model's
        # paraphrase would ground on itself). A window with no user turn needs no call at all.
        out: dict[int, list[Draft]] = {entry.id: [] for entry in request.entries}
        users = [entry for entry in request.entries if entry.role == "user"]
        if not users:
            return out
        extraction = self._call(request)
        for claim in extraction.claims:
            entry = request.entries[claim.turn - 1] if claim.turn <= len(request.entries) else None
            if entry is None or entry.role != "user":
                # Not a user turn of this window: kept as a receipt on the window's first user turn.
                what = f"turn T{claim.turn} is not in this window" if entry is None else f"turn T{claim.turn} is an assistant turn"
                out[users[0].id].append(_receipt(claim, f"dropped: the model named {what}"))
                continue
            out[entry.id].append(self._draft(claim, entry))
        return out

    def _draft(self, claim: ExtractedClaim, entry: JournalEntry) -> Draft:
        said_at = entry.said_at
        when = claim.when.strip()
        value = claim.value.strip() if claim.value and claim.value.strip() else None
        if claim.predicate in EVENT_PREDICATES and claim.op == "add" and value and when:
            event = event_draft(claim.predicate, claim.subject, value, claim.quote, when, said_at, upcoming=claim.upcoming)
            if event is not None:
                return event
            return _receipt(claim, f"held: could not resolve the event time {when!r}", hold=True)
        span = resolve_time_phrase(when, said_at) if when else None
        unresolved = bool(when) and span is None
        # The event predicates have one registration whatever the model says; others are the model's.
        cardinality, template = EVENT_PREDICATES.get(claim.predicate, (claim.cardinality, claim.template))
        return Draft(
            op=claim.op,
            subject=claim.subject,
            predicate=claim.predicate,
            value=value if (value is not None or claim.op == "retract") else "",
            quote=claim.quote,
            cardinality=cardinality,  # type: ignore[arg-type]
            template=template,
            replaces=claim.replaces.strip() if claim.replaces and claim.replaces.strip() else None,
            valid_from=span.valid_from if span else None,
            valid_to=span.valid_to if span else None,
            all_valid_time=claim.never_true and claim.op == "retract",
            time_phrase=when,
            note=f"held: could not resolve the time phrase {when!r}" if unresolved else "",
            hold=unresolved,
        )


def _receipt(claim: ExtractedClaim, reason: str, *, hold: bool = False) -> Draft:
    """The claim as the model gave it, kept for the reviewer: held (hold=True) or dropped with `reason`."""
    return Draft(
        op=claim.op,
        subject=claim.subject,
        predicate=claim.predicate,
        value=claim.value.strip() if claim.value and claim.value.strip() else ("" if claim.op != "retract" else None),
        quote=claim.quote,
        cardinality=claim.cardinality,
        template=claim.template,
        time_phrase=claim.when.strip(),
        note=reason if hold else "",
        hold=hold,
        drop_reason="" if hold else reason,
    )


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
