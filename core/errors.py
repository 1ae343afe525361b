"""Typed errors with messages a user (or the model, on a retry) can act on."""


class PaorError(Exception):
    """Base of every error paor raises on purpose."""


class ConfigurationError(PaorError):
    """A setting or key is missing or wrong; nothing was run."""


class ModelOutputInvalid(PaorError):
    """The model's answer is not valid JSON of the asked shape."""


class SelectionRejected(ModelOutputInvalid):
    """A Stage-1 answer broke the selection protocol (parameters given, unknown action, forbidden field)."""


class ParametersInvalid(ModelOutputInvalid):
    """A Stage-2 answer does not fit the tool's argument schema or names forbidden keys."""


class StepFailed(PaorError):
    """A step gave up after its retry; the run goes on (or stops) with the reason recorded."""


class UnknownDocumentReference(PaorError):
    """A docList:/docItem: reference names no document of this thread."""


class DocumentRejected(PaorError):
    """A document cannot be read: missing, outside the documents folder, oversized, encrypted or corrupt."""


class FetchRefused(PaorError):
    """The fetch guard refused a URL (scheme, address, size, robots.txt, content type)."""


class ToolFailed(PaorError):
    """A tool could not produce its result; becomes a failed ActionResult, never a crash."""


class SiteUnreachable(ToolFailed):
    """A fetched site did not resolve, refused the connection or timed out: a fault of the world. One page of many
    is a note; a step whose every page is unreachable stops as an outage (tools/web/crawl_tool.py)."""


class ToolNotCalled(PaorError):
    """paor could not call the tool: its configuration, the arguments paor built, its registration or the
    connection to it failed. The step fails, but learning holds it against no strategy: the tool never ran."""


class ActionUnavailable(ToolNotCalled):
    """The selected action cannot run here now: its server is declared but withdrawn or did not start."""


class ActionNotDeclared(ActionUnavailable, ConfigurationError, ValueError):
    """The thread selected an action this graph does not have (resumed with other tools): the run stops, naming
    it. A ValueError for the same reason as `InputRefused`: the LangGraph server then shows the reason."""


class InvalidRequest(PaorError):
    """The request itself cannot be worked on (empty, too long)."""


class InputRefused(DocumentRejected, ValueError):
    """An input document breaks the caller's input policy; nothing was read or stored.

    Also a ValueError because the LangGraph server shows a failed run's message to the client only for such
    errors (others become "An internal error occurred"), and the client must learn which rule it broke.
    """


class RequestRefused(InvalidRequest, ValueError):
    """A chat request cannot start (empty message, unreadable attachment); the thread ends the round with an AI
    message saying why. A ValueError for the same reason as `InputRefused`: the server then shows the reason."""


class ServiceUnavailable(PaorError, ValueError):
    """A service paor needs is away, too slow, overloaded or refused paor's credentials: a fault of the world, never
    evidence about an answer or an action. The step stops at once with no update, so nothing is validated or
    learned and the thread resumes at that step once the service is back. A ValueError for the same reason as
    `InputRefused`: the server then shows the reason.

    `service` names it for the operator (an endpoint's URL without credentials, or a tool and its host), `kind` for
    a chat user (never the operator's addresses); `temporary` is False when credentials were refused."""

    def __init__(self, service: str, what: str, hint: str, *, kind: str = "", temporary: bool = True) -> None:
        self.service, self.what, self.hint = service, what, hint
        self.kind = kind or service
        self.temporary = temporary
        super().__init__(f"{service} {what}; {hint}")


class ModelUnavailable(ServiceUnavailable):
    """The model endpoint could not be reached, timed out, was overloaded, or refused the key or the model."""
