"""The LLM extractor: instructor (TOOLS mode) over the OpenAI client, against any OpenAI-compatible
endpoint. The only module of the digest that imports instructor.

Retries are bounded and split by cause: instructor re-asks (with the validation error) when the output
fails the pydantic models, up to `validation_retries` times; timeouts, connection errors, 429 and 5xx
are retried here up to `transient_retries` times with a doubling pause. Anything else fails at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import instructor
import openai
from instructor.core import InstructorRetryException
from pydantic import ValidationError as PydanticValidationError

from .config import DigestConfig
from .extractor import ExtractionRequest, ExtractorError
from .model import Draft
from .prompts.extract_claims import Extraction, ExtractedClaim, build_messages
from .when import resolve_time_phrase

_TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, _TRANSIENT):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _root_cause(exc: BaseException) -> BaseException:
    """instructor wraps the client's error in InstructorRetryException; find what really happened."""
    seen = exc
    while seen.__cause__ is not None and seen.__cause__ is not seen:
        seen = seen.__cause__
    return seen


class LLMExtractor:
    """Proposals from a chat model through instructor's TOOLS mode."""

    def __init__(self, config: DigestConfig, *, sleep: Callable[[float], None] = time.sleep):
        if not config.model:
            raise ExtractorError("no model configured", transient=False)
        self.config = config
        self.name = f"llm:{config.model}"
        self._sleep = sleep
        # max_retries=0 on the client: transient retries are counted here, in one place.
        client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "not-needed",
            timeout=config.timeout,
            max_retries=0,
        )
        self._client = instructor.from_openai(client, mode=instructor.Mode.TOOLS)

    def _call(self, request: ExtractionRequest) -> Extraction:
        messages = build_messages(request.entry, request.recent, request.current, request.predicates)
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
            except Exception as exc:  # instructor and openai raise many types; classify the root cause
                cause = _root_cause(exc)
                if _is_transient(cause):
                    if attempts <= self.config.transient_retries:
                        self._sleep(self.config.retry_backoff * (2 ** (attempts - 1)))
                        continue
                    raise ExtractorError(
                        f"model endpoint unavailable after {attempts} attempt(s): {type(cause).__name__}: {cause}",
                        transient=True,
                        attempts=attempts,
                    ) from None
                if isinstance(cause, (PydanticValidationError, ValueError)) or isinstance(exc, InstructorRetryException):
                    raise ExtractorError(
                        f"model output stayed invalid after {self.config.validation_retries + 1} attempt(s): {_short(cause)}",
                        transient=False,
                        attempts=attempts,
                    ) from None
                raise ExtractorError(f"model call failed: {type(cause).__name__}: {_short(cause)}", transient=False) from None

    def extract(self, request: ExtractionRequest) -> list[Draft]:
        extraction = self._call(request)
        return [self._draft(claim, request) for claim in extraction.claims]

    def _draft(self, claim: ExtractedClaim, request: ExtractionRequest) -> Draft:
        said_at = request.entry.said_at
        span = resolve_time_phrase(claim.when, said_at) if claim.when.strip() else None
        unresolved = bool(claim.when.strip()) and span is None
        value = claim.value.strip() if claim.value and claim.value.strip() else None
        return Draft(
            op=claim.op,
            subject=claim.subject,
            predicate=claim.predicate,
            value=value if (value is not None or claim.op == "retract") else "",
            quote=claim.quote,
            cardinality=claim.cardinality,
            template=claim.template,
            replaces=claim.replaces.strip() if claim.replaces and claim.replaces.strip() else None,
            valid_from=span.valid_from if span else None,
            valid_to=span.valid_to if span else None,
            all_valid_time=claim.never_true and claim.op == "retract",
            time_phrase=claim.when.strip(),
            note=f"held: could not resolve the time phrase {claim.when.strip()!r}" if unresolved else "",
            hold=unresolved,
        )


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
