"""`factledger ui`: the reviewer's page, a FastAPI app over the same library calls as the CLI.

Pages: subjects (search, by scope), a subject's slots with current values, a slot's timeline with an
"as known at" control (state in the URL), a transaction with its sources and proposals, the review
queue, one proposal with its accept preview. Writes (accept, reject, edit-and-accept, confirm, lift,
unconfirm) are operator actions behind security.Guard; the page is read-only without the token.
Every page is a Jinja template with autoescape on; the chart spec goes in as JSON through `tojson`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from factledger.digest import (
    DigestConfig,
    Edit,
    Journal,
    accept_many,
    accept_one,
    bulk_preview,
    confirm,
    matching_ids,
    detail,
    duplicate_ids,
    journal_ids,
    lift,
    list_confirmations,
    slot_open_proposals,
    list_proposals,
    list_rejections,
    get_proposal,
    proposals_of_transaction,
    queue_filter,
    queue_page,
    reject,
    reject_many,
    unconfirm,
    undo_decision,
)
from factledger.digest.queue import MAX_PER_PAGE, VIEWS
from factledger.digest.review_undo import reopened_by
from factledger.ledger import ConflictError, Ledger, LedgerError, NotFoundError, PermissionDenied, ValidationError
from factledger.ledger.times import display, parse_optional

from . import timeline
from .security import COOKIE, Guard, allowed_host, page_hosts, same_origin

HERE = Path(__file__).parent
STATUS_OF = {NotFoundError: 404, PermissionDenied: 403, ConflictError: 409, ValidationError: 400}
# Row ids in paths: SQLite's INTEGER range (a larger number was an OverflowError, HTTP 500).
Id = Annotated[int, PathParam(ge=0, le=2**63 - 1)]


def _status(exc: LedgerError) -> int:
    for kind, code in STATUS_OF.items():
        if isinstance(exc, kind):
            return code
    return 400


def create_app(db_path: Path, *, guard: Guard, context_turns: int | None = None, hosts: Iterable[str] = ()) -> FastAPI:
    """The page over the ledger at `db_path`. It answers only requests whose Host is one of its own
    names: 127.0.0.1, localhost, [::1] and `hosts` (the host it is bound to), so a page of another site
    whose name was rebound to this machine (DNS rebinding) reads nothing (421)."""
    app = FastAPI(title="factledger", docs_url=None, redoc_url=None, openapi_url=None)
    own_hosts = page_hosts(hosts)
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # .html: autoescape on
    templates.env.filters["when"] = lambda t: display(t) if t else ""
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    turns_shown = DigestConfig().context_turns if context_turns is None else context_turns

    def ledger() -> Ledger:
        return Ledger.open(db_path)

    def signed_in(request: Request) -> bool:
        return guard.token_ok(request.cookies.get(COOKIE))

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        base = {
            "principal": guard.principal,
            "writable": guard.writable and signed_in(request),
            "can_sign_in": guard.writable and not signed_in(request),
            "csrf": guard.csrf() if guard.writable and signed_in(request) else "",
            "sign_in_next": here if request.method == "GET" else "/queue",
            "status_code": status,
        }
        return templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    def wants_json(request: Request) -> bool:
        return "application/json" in request.headers.get("accept", "")

    @app.middleware("http")
    async def only_own_host(request: Request, call_next: Any) -> Response:
        host = request.headers.get("host")
        if not allowed_host(host, own_hosts):
            names = ", ".join(sorted(own_hosts))
            message = f"host: this page answers only as {names}, not {host!r}" if host else "host: the request names no Host"
            return PlainTextResponse(message + "\n", status_code=421 if host else 400)
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        field = str(first.get("loc", ["", "request"])[-1])
        reason = str(first.get("msg", "malformed request"))
        return await ledger_error(request, ValidationError(reason, field=field))

    @app.exception_handler(LedgerError)
    async def ledger_error(request: Request, exc: LedgerError) -> Response:
        if wants_json(request) or request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc), "field": exc.field}, status_code=_status(exc))
        return page(request, "error.html", status=_status(exc), message=str(exc), field=exc.field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """Unknown paths and wrong methods: an HTML page for a person, JSON for a script."""
        message = {404: f"no page at {request.url.path}", 405: f"{request.method} is not allowed at {request.url.path}"}.get(
            exc.status_code, str(exc.detail))
        if wants_json(request):
            return JSONResponse({"error": message, "field": "path"}, status_code=exc.status_code)
        return page(request, "error.html", status=exc.status_code, message=message, field="path")

    # -- writes -----------------------------------------------------------------------------------
    # A handler reads the request on the event loop, then runs the ledger call in a worker thread
    # (run_in_threadpool): a write that waits for the ledger's writer lock never stalls the loop, so
    # reads go on being served while another process holds the writer.

    async def check_write(request: Request) -> dict[str, str]:
        """The form (or JSON body) of an allowed write; raises PermissionDenied otherwise. Repeated
        fields (`id` of a bulk decision) are kept as a list in request.state.ids."""
        if not guard.writable:
            why = "the page is read-only (started without a token)" if guard.token is None else f"{guard.principal} is not an operator"
            raise PermissionDenied(f"writes refused: {why}", field="principal")
        if not same_origin(request.headers.get("origin"), request.headers.get("referer"), request.headers.get("host")):
            raise PermissionDenied("writes refused: the request does not come from this page's origin", field="origin")
        bearer = request.headers.get("authorization", "")
        presented = bearer[7:] if bearer.lower().startswith("bearer ") else request.cookies.get(COOKIE)
        if not guard.token_ok(presented):
            raise PermissionDenied("writes refused: sign in with the operator's token", field="token")
        ids: list[str] = []
        if request.headers.get("content-type", "").startswith("application/json"):
            try:
                body = json.loads(await request.body())
            except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past the parser
                raise ValidationError("the request body is not valid JSON", field="body") from None
            if not isinstance(body, dict):
                raise ValidationError("the request body must be a JSON object of fields", field="body")
            raw_ids = body.pop("ids", [])
            ids = [str(i) for i in raw_ids] if isinstance(raw_ids, list) else [str(raw_ids)]
            fields = {str(k): str(v) for k, v in body.items()}
        else:
            form = await request.form()
            ids = [str(v) for v in form.getlist("id")]
            fields = {k: str(v) for k, v in form.items() if k != "id"}
        if not guard.csrf_ok(fields.get("csrf") or request.headers.get("x-csrf-token")):
            raise PermissionDenied("writes refused: missing or wrong CSRF token", field="csrf")
        request.state.ids = ids
        return fields

    def own_path(target: str | None, default: str) -> str:
        """`target` if it is a path of this site (no open redirect), else `default`."""
        if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
            return default
        return target

    def done(request: Request, data: dict[str, Any], back: str, form: dict[str, str] | None = None) -> Response:
        if wants_json(request):
            return JSONResponse(data)
        return RedirectResponse(own_path((form or {}).get("next"), back), status_code=303)

    @app.post("/login")
    async def login(request: Request) -> Response:
        if not same_origin(request.headers.get("origin"), request.headers.get("referer"), request.headers.get("host")):
            raise PermissionDenied("sign-in refused: the request does not come from this page's origin", field="origin")
        form = await request.form()
        target = own_path(str(form.get("next") or ""), "/queue")  # the page, with its query string
        if not guard.writable or not guard.token_ok(str(form.get("token", ""))):
            return page(request, "error.html", status=403, message="token: wrong token, or the page is read-only",
                        field="token", sign_in_next=target)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, guard.token or "", httponly=True, samesite="strict")
        return response

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        # A write like the others: a foreign page must not sign the reviewer out (login CSRF's twin).
        if not same_origin(request.headers.get("origin"), request.headers.get("referer"), request.headers.get("host")):
            raise PermissionDenied("sign-out refused: the request does not come from this page's origin", field="origin")
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    def decided_already(lg: Ledger, proposal_id: int, status: str) -> dict[str, Any] | None:
        """A repeated decision (a double click, a retry after a lost answer) is harmless: when the
        proposal already has the outcome asked for, answer with it instead of a conflict."""
        p = get_proposal(lg, proposal_id)
        if p.status != status:
            return None
        verb = "accepted" if status == "applied" else "rejected"
        return {**p.to_dict(), "already": True, "message": f"proposal #{p.id} was already {verb} by {p.decided_by}"}

    @app.post("/proposal/{proposal_id}/accept")
    async def accept_view(request: Request, proposal_id: Id) -> Response:
        form = await check_write(request)
        if form.get("edit_valid_to") and "valid_to" not in form:
            raise ValidationError("edit_valid_to needs valid_to (a time, or empty for an open end)", field="valid_to")
        edit = Edit(
            value=form.get("value") or None,
            valid_from=form.get("valid_from") or None,
            valid_to=form["valid_to"] if form.get("edit_valid_to") else None,
        )

        def run() -> dict[str, Any]:
            with ledger() as lg:
                try:
                    outcome = accept_one(lg, proposal_id, principal=guard.principal, reason=form.get("reason", ""), edit=edit)
                except ConflictError:
                    again = decided_already(lg, proposal_id, "applied") if edit.empty else None
                    if again is None:
                        raise
                    return again
                return {**outcome.to_dict(), "already": False, "message": outcome.message()}

        data = await run_in_threadpool(run)
        return done(request, data, f"/proposal/{data['id']}", form)

    @app.post("/proposal/{proposal_id}/reject")
    async def reject_view(request: Request, proposal_id: Id) -> Response:
        form = await check_write(request)

        def run() -> dict[str, Any]:
            with ledger() as lg:
                try:
                    p = reject(lg, proposal_id, principal=guard.principal, reason=form.get("reason", ""))
                except ConflictError:
                    again = decided_already(lg, proposal_id, "rejected")
                    if again is None:
                        raise
                    return again
                memory = f"; rejection #{p.rejection_id} keeps {p.value!r} from coming back" if p.rejection_id else ""
                return {**p.to_dict(), "already": False, "message": f"rejected proposal #{p.id}: {p.describe()}{memory}"}

        data = await run_in_threadpool(run)
        return done(request, data, f"/proposal/{proposal_id}", form)

    @app.post("/proposal/{proposal_id}/undo")
    async def undo_view(request: Request, proposal_id: Id) -> Response:
        form = await check_write(request)

        def run() -> dict[str, Any]:
            with ledger() as lg:
                try:
                    return {**undo_decision(lg, proposal_id, principal=guard.principal, reason=form.get("reason", "")).to_dict(),
                            "already": False}
                except ConflictError:
                    p = get_proposal(lg, proposal_id)
                    copy = reopened_by(p)
                    if copy is None:
                        raise
                    # a repeated undo (a double click) answers with the first one's outcome
                    return {**p.to_dict(), "already": True, "reopened": get_proposal(lg, copy).to_dict(),
                            "message": f"the decision on proposal #{p.id} was already undone: proposal #{copy} reopens it"}

        data = await run_in_threadpool(run)
        return done(request, data, f"/proposal/{data['reopened']['id']}", form)

    def bulk_choice(lg: Ledger, form: dict[str, str], ids: list[str]) -> list[int]:
        """The proposals a bulk form names: the ticked ids, or every open one matching its filter."""
        if form.get("all_matching"):
            params = dict(parse_qsl(form.get("filter", "")))
            return matching_ids(lg, filter_from(lg, params))
        try:
            chosen = [int(i) for i in ids]
        except ValueError:
            raise ValidationError("proposal ids are whole numbers", field="id") from None
        if not chosen:
            raise ValidationError("tick at least one proposal (or all matching the filter)", field="id")
        return chosen

    @app.post("/bulk/preview", response_class=HTMLResponse)
    async def bulk_preview_view(request: Request) -> Response:
        form = await check_write(request)
        action = form.get("action", "")

        if form.get("duplicates"):
            action = "reject"  # "reject duplicates"

        def run() -> tuple[Any, dict[int, str]]:
            with ledger() as lg:
                why = duplicate_ids(lg, filter_from(lg, dict(parse_qsl(form.get("filter", ""))))) if form.get("duplicates") else {}
                chosen = list(why) if form.get("duplicates") else bulk_choice(lg, form, request.state.ids)
                if form.get("duplicates") and not chosen:
                    raise ValidationError("no open proposal under this filter repeats another or what its slot holds", field="filter")
                return bulk_preview(lg, chosen, action, principal=guard.principal, remember=not why), why  # type: ignore[arg-type]

        shown, why = await run_in_threadpool(run)
        if wants_json(request):
            return JSONResponse({**shown.to_dict(), "duplicates": {str(k): v for k, v in why.items()}})
        return page(request, "bulk.html", preview=shown, why=why, filter=form.get("filter", ""), reason=form.get("reason", "duplicates" if why else ""),
                    back=own_path(form.get("next"), "/queue"))

    @app.post("/bulk/run", response_class=HTMLResponse)
    async def bulk_run_view(request: Request) -> Response:
        form = await check_write(request)
        action = form.get("action", "")
        if action not in ("accept", "reject"):
            raise ValidationError(f"{action!r} is not a bulk action; use accept or reject", field="action")

        def run() -> list[str]:
            with ledger() as lg:
                ids = bulk_choice(lg, form, request.state.ids)
                if action == "accept":
                    return [a.message() for a in accept_many(lg, ids, principal=guard.principal, reason=form.get("reason", ""))]
                duplicates = bool(form.get("duplicates"))
                with lg.storage.atomic():  # the check and the rejections in one transaction
                    if duplicates:  # still duplicates of what stays open? (another reviewer may have decided since)
                        found = duplicate_ids(lg, filter_from(lg, dict(parse_qsl(form.get("filter", "")))))
                        gone = [i for i in ids if i not in found]
                        if gone:
                            raise ConflictError(f"proposal #{gone[0]} no longer repeats an open proposal; preview again", field="id")
                    done = reject_many(lg, ids, principal=guard.principal, reason=form.get("reason", ""), remember=not duplicates)
                return [f"rejected proposal #{p.id}: {p.describe()}" + (" (a duplicate)" if duplicates else "") for p in done]

        messages = await run_in_threadpool(run)
        if wants_json(request):
            return JSONResponse({"action": action, "done": messages})
        return page(request, "bulk.html", preview=None, messages=messages, back=own_path(form.get("next"), "/queue"))

    @app.post("/rejection/{rejection_id}/lift")
    async def lift_view(request: Request, rejection_id: Id) -> Response:
        form = await check_write(request)

        def run() -> dict[str, Any]:
            with ledger() as lg:
                return lift(lg, rejection_id, principal=guard.principal).to_dict()

        return done(request, await run_in_threadpool(run), "/queue", form)

    @app.post("/claim/{claim_id}/confirm")
    async def confirm_view(request: Request, claim_id: Id) -> Response:
        form = await check_write(request)

        def run() -> dict[str, Any]:
            with ledger() as lg:
                return confirm(lg, claim_id, principal=guard.principal, reason=form.get("reason", "")).to_dict()

        return done(request, await run_in_threadpool(run), "/queue", form)

    @app.post("/confirmation/{confirmation_id}/unconfirm")
    async def unconfirm_view(request: Request, confirmation_id: Id) -> Response:
        form = await check_write(request)

        def run() -> dict[str, Any]:
            with ledger() as lg:
                return unconfirm(lg, confirmation_id, principal=guard.principal).to_dict()

        return done(request, await run_in_threadpool(run), "/queue", form)

    # -- reads ------------------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    def subjects_view(request: Request, q: str = "", scope: str = "") -> Response:
        with ledger() as lg:
            scopes = lg.scopes()
            rows = lg.slots([scope] if scope else None, search=q or None)
        subjects: dict[tuple[str, str], dict[str, Any]] = {}
        for r in rows:
            s = subjects.setdefault((r["scope"], r["subject_key"]), {**r, "predicates": []})
            s["predicates"].append(r["predicate"])
        if wants_json(request):
            return JSONResponse(rows)
        return page(request, "subjects.html", subjects=list(subjects.values()), scopes=scopes, q=q, scope=scope)

    @app.get("/subject", response_class=HTMLResponse)
    def subject_view(request: Request, scope: str, subject: str) -> Response:
        with ledger() as lg:
            rows = lg.slots([scope], subject=subject)
            current = lg.current([scope], subject=subject)
        values: dict[str, list[Any]] = {}
        for c in current:
            values.setdefault(c.predicate, []).append(c)
        if not rows:
            raise NotFoundError(f"no subject {subject!r} in scope {scope!r}", field="subject")
        if wants_json(request):
            return JSONResponse({"slots": rows, "current": [c.to_dict() for c in current]})
        return page(request, "subject.html", scope=scope, subject=rows[0]["subject"], subject_key=subject, slots=rows, values=values)

    @app.get("/slot", response_class=HTMLResponse)
    def slot_view(request: Request, scope: str, subject: str, predicate: str, known_at: str = "") -> Response:
        known = parse_optional(known_at or None, "known_at")
        with ledger() as lg:
            history = lg.history([scope], subject=subject, predicate=predicate)
            now = lg.clock()
            claim_ids = [h.version.id for h in history]
            confirmations = [c for c in list_confirmations(lg, scope=scope) if c.claim_id in claim_ids]
            waiting, waiting_total = slot_open_proposals(lg, scope, subject, predicate) if not history else ([], 0)
        if not history:
            if not waiting_total:
                raise NotFoundError(f"no versions and no open proposals for {subject} {predicate} in scope {scope!r}", field="slot")
            # A proposal's slot link before anything was accepted there: the slot is empty, say so.
            if wants_json(request):
                return JSONResponse({"bars": [], "valid_now": [], "known_at": known, "moments": [],
                                     "proposals": [p.to_dict() for p in waiting], "proposals_total": waiting_total})
            return page(request, "slot_empty.html", here={"scope": scope, "subject": subject, "predicate": predicate},
                        proposals=waiting, total=waiting_total)
        drawn = timeline.bars(history, known)
        chart = timeline.spec(drawn, now=now)
        shown_value = timeline.value_at(drawn, now)
        if wants_json(request):
            return JSONResponse({"bars": [b.to_dict() for b in drawn], "valid_now": shown_value, "known_at": known,
                                 "moments": timeline.moments(history, known), "now": now, "spec": chart})
        moments = timeline.moments(history, known)  # a shared known_at between two moments is one of them
        here = {"scope": scope, "subject": subject, "predicate": predicate}
        return page(
            request, "slot.html", here=here, bars=drawn, spec=chart, known_at=known, moments=moments,
            valid_now=shown_value, now=now, history=history, confirmations=confirmations,
            link=lambda **extra: "/slot?" + urlencode({**here, **extra}),
        )

    @app.get("/tx/{tx_id}", response_class=HTMLResponse)
    def tx_view(request: Request, tx_id: Id) -> Response:
        with ledger() as lg:
            tx = lg.transaction_record(tx_id)
            if tx is None:
                raise NotFoundError(f"no ledger transaction #{tx_id}", field="tx")
            journal = Journal(lg)
            turns = [t for t in (journal.entry(i) for i in journal_ids(tx.sources)) if t is not None]
            opened, closed = lg.transaction_versions(tx_id)
            proposals = proposals_of_transaction(lg, tx_id)
        if wants_json(request):
            return JSONResponse({"tx": tx.to_dict(), "turns": [t.to_dict() for t in turns], "opened": [v.to_dict() for v in opened],
                                 "closed": [v.to_dict() for v in closed], "proposals": [p.to_dict() for p in proposals]})
        return page(request, "tx.html", tx=tx, turns=turns, opened=opened, closed=closed, proposals=proposals)


    QUEUE_FIELDS = ("view", "scope", "subject", "predicate", "session", "extractor", "policy", "reason", "q")

    def filter_from(lg: Ledger, params: dict[str, str]) -> Any:
        return queue_filter(
            lg, view=params.get("view", "open"), scope=params.get("scope"), subject=params.get("subject"),
            predicate=params.get("predicate"), session=params.get("session"), extractor=params.get("extractor"),
            policy=params.get("policy"), reason=params.get("reason"), search=params.get("q"),
        )

    @app.get("/queue", response_class=HTMLResponse)
    def queue_view(request: Request, order: str = "newest", page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
                   per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = 20) -> Response:
        if order not in ("newest", "oldest"):
            raise ValidationError(f"{order!r} is not an order; use newest or oldest", field="order")
        params = {k: request.query_params.get(k, "") for k in QUEUE_FIELDS}
        with ledger() as lg:
            f = filter_from(lg, params)
            shown = queue_page(lg, f, page=page_no, per_page=per_page, oldest_first=order == "oldest")
            details = [detail(lg, p.id, context_turns=turns_shown, wait=False) for p in shown.proposals]
            scope = f.scope
            rejections = list_rejections(lg, scope=scope)
            confirmations = list_confirmations(lg, scope=scope)
        kept = {k: v for k, v in {**params, "order": order if order != "newest" else "", "per_page": str(per_page) if per_page != 20 else ""}.items() if v}

        def link(**changes: Any) -> str:
            query = {k: v for k, v in {**kept, **{k: str(v) for k, v in changes.items()}}.items() if v not in ("", None)}
            return "/queue" + ("?" + urlencode(query) if query else "")

        if wants_json(request):
            return JSONResponse({
                "total": shown.total, "counts": shown.counts, "page": shown.page, "pages": shown.pages,
                "per_page": shown.per_page, "order": order, "proposals": [d.to_dict() for d in details],
                "rejections": [r.to_dict() for r in rejections], "confirmations": [c.to_dict() for c in confirmations],
            })
        return page(request, "queue.html", details=details, shown=shown, params=params, order=order, per_page=per_page,
                    rejections=rejections, confirmations=confirmations, link=link,
                    here=link(page=shown.page if shown.page > 1 else ""), views=list(VIEWS))

    @app.get("/proposal/{proposal_id}", response_class=HTMLResponse)
    def proposal_view(request: Request, proposal_id: Id) -> Response:
        with ledger() as lg:
            d = detail(lg, proposal_id, context_turns=turns_shown, wait=False)
            now = lg.clock()
        drawn = timeline.before_after(d.preview, now=now) if d.proposal.status in ("pending", "rejected_again") else {}
        if wants_json(request):
            return JSONResponse({**d.to_dict(), "before_after": drawn})
        return page(request, "proposal.html", d=d, spec=drawn)

    return app

