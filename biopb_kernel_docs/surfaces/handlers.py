"""The REST API under ``/biopb-kernel-docs/api/``: thin over the operation list, values as JSON.

Every route is authenticated and authorized with jupyter_server's own decorators; writes need
the XSRF token like every Jupyter API. Refusals become ``{"message", "kind"}`` JSON with the
refusal's status, written in one place (``_refuse``), in the panel's words; doc text never goes
into tornado's log message, which is %-formatted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import tornado.web
from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from ..core.errors import DocsError, InternalError, InvalidArguments
from ..core.ids import INDEX_ID
from ..core.phrases import Surface, read, render
from ..core.values import (
    DiffView,
    HistoryView,
    SkillExport,
    SkillImport,
    VersionDiffView,
    WriteResult,
    from_json,
    to_json,
)
from ..text.handshake import handshake
from ..text.history import author_label, bounds_text
from . import operations
from .connect import connect_config

log = logging.getLogger(__name__)
AUTH_RESOURCE = "biopb_kernel_docs"
HANDSHAKE_BUDGET = 2048


class DocsHandler(APIHandler):
    """The common part: the caller's ``Docs``, the JSON body, and the one refusal mapper."""

    auth_resource = AUTH_RESOURCE

    @property
    def docs_service(self):
        return self.settings["biopb_kernel_docs"]

    def run(self, name: str, arguments: dict[str, Any]) -> Any:
        user = self.current_user
        docs = self.docs_service.docs_for(user.username, user.name)
        value = operations.run(docs, name, arguments)
        if operations.OPERATIONS[name].writes:
            self.docs_service.changed()
        return value

    def arguments_from_body(self) -> dict[str, Any]:
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError as err:
            raise InvalidArguments(f"The request body is not valid JSON ({err}).") from None
        except RecursionError:  # the parser recurses once per level: '[' x 100,000 exhausts the stack
            raise InvalidArguments(
                "The request body nests JSON too deeply to read. Send one JSON object of argument names "
                'to strings, such as {"body": "# My doc\\n"}.'
            ) from None
        if not isinstance(body, dict):
            raise InvalidArguments("The request body must be a JSON object of argument names to values.")
        return body

    def answer(self, compute: Callable[[], Any]) -> None:
        try:
            value = compute()
            data = json.dumps(_json(value))
        except DocsError as err:
            self._refuse(err)
            return
        except Exception:  # a bug: answered in the API's own shape, never with a traceback
            log.exception("biopb-kernel-docs: %s %s failed", self.request.method, self.request.path)
            self._refuse(
                InternalError(
                    "The docs server met an unexpected error (a bug in biopb-kernel-docs; its log has the "
                    "details). Whether this request changed anything is not known: reload the index "
                    f"({read(INDEX_ID)}) to see the docs as they are now before trying again."
                )
            )
            return
        self.set_header("Content-Type", "application/json")
        self.finish(data)

    def _refuse(self, err: DocsError) -> None:
        self.set_status(err.status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"message": err.text_for(Surface.PANEL), "kind": err.kind()}))


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:56]}...{text[-1]}"


def _json(value: Any) -> Any:
    """A value as JSON (plain data passes as it is), with what a reader would otherwise compute:
    the diffs, each author's label (``claude-code 2.1 via MCP``), a history's bounds in words."""
    data = _labelled(to_json(value))
    if isinstance(value, DiffView | VersionDiffView):
        data["diff"] = value.diff()
    elif isinstance(value, WriteResult):
        data["diffs"] = [change.diff() for change in value.changes]
    elif isinstance(value, HistoryView):
        data["bounds"] = bounds_text(value)
    elif isinstance(value, SkillExport | SkillImport):  # a note's reason names calls: the panel's words
        for group in ("refused", "left_alone"):
            for note in data.get(group, []):
                note["reason"] = render(note["reason"], Surface.PANEL)
    return data


def _labelled(data: Any) -> Any:
    if isinstance(data, list):
        return [_labelled(item) for item in data]
    if not isinstance(data, dict):
        return data
    labelled = {key: _labelled(item) for key, item in data.items()}
    if data.get("type") == "Author":
        labelled["label"] = author_label(from_json(data))
    return labelled


class IndexHandler(DocsHandler):
    @tornado.web.authenticated
    @authorized
    def get(self) -> None:
        def index() -> dict[str, Any]:
            view = self.run("index", {})
            data = _json(view)
            data["handshake"] = to_json(handshake(view, HANDSHAKE_BUDGET))  # from the same reading
            return data

        self.answer(index)


class DocHandler(DocsHandler):
    @tornado.web.authenticated
    @authorized
    def get(self, doc_id: str) -> None:
        self.answer(lambda: self.run("read_doc", {"id": doc_id}))

    @tornado.web.authenticated
    @authorized
    def put(self, doc_id: str) -> None:
        def write() -> Any:
            arguments = self.arguments_from_body()
            named = arguments.get("id", doc_id)
            if named != doc_id:
                raise InvalidArguments(
                    f"The address names doc {doc_id!r} but the body's id is {_short(named)}. Nothing was "
                    "written. Leave id out of the body (the address names the doc), or send the write to "
                    "that doc's own address."
                )
            return self.run("write_doc", {**arguments, "id": doc_id})

        self.answer(write)


class SearchHandler(DocsHandler):
    """``GET search?q=...&regex=1``: search_docs for a search box (the ops route takes a POST)."""

    @tornado.web.authenticated
    @authorized
    def get(self) -> None:
        def search() -> Any:
            regex = self.get_query_argument("regex", "0").lower()
            if regex not in ("0", "1", "true", "false", ""):
                raise InvalidArguments(f"regex is 1 or 0 (true or false), not {regex!r}.")
            arguments = {"query": self.get_query_argument("q", ""), "regex": regex in ("1", "true")}
            return self.run("search_docs", arguments)

        self.answer(search)


class OperationHandler(DocsHandler):
    @tornado.web.authenticated
    @authorized
    def post(self, name: str) -> None:
        self.answer(lambda: self.run(operations.operation(name).name, self.arguments_from_body()))


class ReviewHandler(DocsHandler):
    @tornado.web.authenticated
    @authorized
    def get(self) -> None:
        self.answer(lambda: self.run("review", {}))


class ConnectHandler(DocsHandler):
    @tornado.web.authenticated
    @authorized
    def get(self) -> None:
        def connect() -> dict[str, Any]:
            kernel_id = self.get_query_argument("kernel_id", "")
            try:
                kernel = self.kernel_manager.get_kernel(kernel_id)
            except (KeyError, tornado.web.HTTPError):
                raise InvalidArguments(
                    f"No running kernel {kernel_id!r}. Open a notebook and start its kernel, then try again."
                ) from None
            return connect_config(kernel.connection_file)

        self.answer(connect)


def handlers(base_url: str) -> list[tuple[str, type[DocsHandler]]]:
    api = url_path_join(base_url, "biopb-kernel-docs", "api")
    return [
        (url_path_join(api, "index"), IndexHandler),
        (url_path_join(api, "docs", r"(.+)"), DocHandler),
        (url_path_join(api, "ops", r"([a-z_]+)"), OperationHandler),
        (url_path_join(api, "search"), SearchHandler),
        (url_path_join(api, "review"), ReviewHandler),
        (url_path_join(api, "connect"), ConnectHandler),
    ]
