"""One reader for what chat clients attach to a message, whatever block shape their library uses.

Shapes in use (each has a test with the block as its client sends it, tests/unit/core/test_attachments.py):
- Agent Chat UI and LangChain JS standard blocks: `{"type": "file"|"image", "mimeType", "data", "metadata":
  {"filename"|"name"}}` (camelCase; langchain-core passes them through untranslated);
- LangChain (Python) standard blocks: `{"type": "file"|"image"|…, "base64"|"url"|"file_id", "mime_type"}`, and
  the older `source_type` blocks;
- OpenAI chat completions: `{"type": "file", "file": {"file_data": "data:…;base64,…", "filename"}}` and
  `{"type": "image_url", "image_url": {"url": "data:…"}}`; Anthropic's `document`/`image` sources too.
langchain-core's `content_blocks` translates the last three families into the standard shape; this module reads
the standard and the camelCase shapes. A block is text, an `Attachment` (bytes, still base64), a `Linked` http(s)
URL (fetched later through the guard), or `Unreadable` with the reason — never dropped without a word. An `Image`
is unreadable to paor's readers but not to a model that accepts images: `read_attachments` asks the endpoint once
(remembered in core.capabilities) and passes it on as an input document, or leaves it out saying why. A round
reads every attachment it can and goes on without the others, naming each in its notes (`LEFT_OUT`).

Every input image of a round is shown to the model or named below the answer as not read, with why, in the user's
language where paor has it (`not_read`): the endpoint refuses images (`image_refusal`), or no step of the round
read it (`closing_notes`, nodes/inputs_read.py), as for every input document the round had to read.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes, urlsplit

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.store.base import BaseStore

from core.capabilities import REFUSED_STATUS, Capabilities, endpoint_key, refusal_about
from core.errors import DocumentRejected
from core.llm import length_limit, without_client_retries
from core.outages import as_model_outage
from core.schemas import DocumentRef, HistoryEntry
from nodes import inputs_read
from tools import ai_process
from tools.document.detect import SUPPORTED_TYPES
from tools.documents import INPUT_LABEL, DocumentStore, safe_file_name
from tools.ingest import UPLOAD_PREFIX, store_checked

if TYPE_CHECKING:
    from core.state import State

_DATA_TYPES = ("file", "image", "audio", "video", "text-plain")
_MEDIA = ("image", "audio", "video")
_UPLOAD_HINT = "attach the file itself (or upload it: POST /paor/documents)"


@dataclass(frozen=True)
class Attachment:
    """A document sent inside a message, still base64 (decoded only after its size is checked)."""

    name: str
    mime: str
    base64: str

    def data(self, limit: int) -> bytes:
        """The bytes; DocumentRejected when over `limit` bytes or not base64 (checked before decoding)."""
        if len(self.base64) * 3 // 4 > limit:
            raise DocumentRejected(f"{self.name} is larger than {limit} bytes (max_document_mb)")
        try:
            return base64.b64decode(self.base64, validate=True)
        except (binascii.Error, ValueError):
            raise DocumentRejected(f"{self.name} is not valid base64 data") from None


@dataclass(frozen=True)
class Linked:
    """An input source named by an attachment: an http(s) URL (fetched through the guard), or the upload the server
    made of an attachment before the run started (server/attachments.py), shown by its file name."""

    url: str
    shown: str = ""

    @property
    def name(self) -> str:
        return self.shown or self.url


@dataclass(frozen=True)
class Unreadable:
    """An attachment paor cannot read, and why; the round refuses to start rather than ignore it."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name} cannot be read: {self.reason}"


@dataclass(frozen=True)
class Image(Unreadable):
    """An image: no reader of paor's reads it, but a model that accepts images sees it (`read_attachments`)."""

    content: Attachment

    def unseen(self, why: str) -> UnseenImage:
        """The image as a round leaves it out: what it is, and why the model cannot see it."""
        return UnseenImage.of(self.name, self.content.mime, why)


@dataclass(frozen=True)
class UnseenImage(Unreadable):
    """An image the model is not shown; `why` is the reason `image_refusal` gave. Its note is `not_read`."""

    why: str

    @classmethod
    def of(cls, name: str, mime: str, why: str) -> UnseenImage:
        return cls(name, f"it is an image ({mime}), and {why}", why)


@dataclass(frozen=True)
class Rejected(Unreadable):
    """An attachment the checks of an upload refused; their message is the whole sentence and names the file."""

    def __str__(self) -> str:
        return self.reason


Part = Attachment | Linked | Unreadable


def read_block(raw: Any, number: int) -> str | Part:
    """A message content block as text (a `str`) or an attachment part; `number` counts the blocks from 1."""
    try:
        (block,) = HumanMessage(content=[raw]).content_blocks  # langchain-core's translation of the known shapes
    except Exception:  # a malformed block of a known shape (langchain-core raises KeyError and friends)
        return Unreadable(f"attachment {number}", "its block is malformed")
    kind = str(block.get("type") or "")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "non_standard":
        value = block.get("value")
        shown = value.get("type") if isinstance(value, dict) else None
        return Unreadable(f"attachment {number}", f"paor does not know the block type {shown or 'without a type'!r}")
    if kind not in _DATA_TYPES:
        return Unreadable(f"attachment {number}", f"a {kind!r} block is not an attachment paor can read")
    return _data_block(dict(block), kind, number)


def _data_block(block: dict[str, Any], kind: str, number: int) -> Part:
    mime = str(block.get("mime_type") or block.get("mimeType") or "")
    encoded = block.get("base64") or block.get("data")
    url = block.get("url")
    if isinstance(encoded, str) and encoded.startswith("data:"):
        url, encoded = encoded, None
    name = _name_of(block, number, mime or _data_url_mime(url))
    media = kind if kind in _MEDIA else mime.split("/", 1)[0] if mime.startswith(_MEDIA) else None
    if not media:
        return _content_of(block, kind, name, mime, encoded, url)
    article = "an" if media[0] in "aeiou" else "a"
    reason = f"it is {article} {media} ({mime or 'no type given'}); paor reads {SUPPORTED_TYPES}"
    content = _content_of(block, kind, name, mime, encoded, url) if media == "image" else None
    if isinstance(content, Attachment):  # sent with the message; an image link is not fetched
        return Image(name, reason, content)
    return Unreadable(name, reason)


def _content_of(block: dict[str, Any], kind: str, name: str, mime: str, encoded: Any, url: Any) -> Part:
    if isinstance(encoded, str) and encoded:
        return Attachment(name, mime or "application/octet-stream", encoded)
    if kind == "text-plain" and isinstance(block.get("text"), str):
        return Attachment(name, mime or "text/plain", base64.b64encode(block["text"].encode()).decode())
    if isinstance(url, str) and url:
        return _from_url(url, name, mime)
    reference = block.get("file_id") or block.get("fileId")
    if isinstance(reference, str) and reference.startswith(UPLOAD_PREFIX):
        return Linked(reference, name)
    if reference:
        return Unreadable(
            name, f"it names a file kept by another service ({reference}), not its content; {_UPLOAD_HINT}"
        )
    return Unreadable(name, "the block carries no content")


def _from_url(url: str, name: str, mime: str) -> Part:
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        given = header[len("data:") :].split(";")
        if "base64" in given[1:]:
            return Attachment(name, mime or given[0] or "application/octet-stream", payload.strip())
        raw = unquote_to_bytes(payload)
        return Attachment(name, mime or given[0] or "text/plain", base64.b64encode(raw).decode())
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("http", "https"):
        return Linked(url)
    return Unreadable(name, f"a {scheme or 'relative'} link cannot be fetched; {_UPLOAD_HINT} or give an http(s) link")


def _data_url_mime(url: Any) -> str:
    if isinstance(url, str) and url.startswith("data:"):
        return url[len("data:") :].split(",", 1)[0].split(";", 1)[0]
    return ""


def _name_of(block: dict[str, Any], number: int, mime: str) -> str:
    """The file name the client gave, without its path parts, else one made from the number and type.

    Agent Chat UI: metadata.filename (PDF) or metadata.name (image); OpenAI: file.filename (extras.filename once
    translated); LangChain: filename, or extras.metadata after translating an older block; text-plain: title."""
    extras = block.get("extras") or {}
    metadata = block.get("metadata") or extras.get("metadata") or {}
    for candidate in (
        block.get("filename"),
        extras.get("filename"),
        metadata.get("filename"),
        metadata.get("name"),
        block.get("title"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return safe_file_name(candidate)
    extension = mime.rsplit("/", 1)[-1] if "/" in mime else "bin"
    return f"attachment-{number}.{extension}"


#: How a note about an attachment the round went on without begins; the answer shows these notes below it.
LEFT_OUT = "Left out: "
#: Why a model is not shown an image.
NO_IMAGES = "this model does not accept images"
NOT_OPENAI = "paor passes images only to OpenAI-compatible endpoints"
NOT_ASKED = "the model endpoint could not be asked whether it accepts images"
#: Why an input document the round had to read is named below the answer: no step of the round read it (an image:
#: showed it to the model).
UNREAD = "no step of this answer read it"
#: "chart.png — not read: why", in the user's language where paor has it (English otherwise).
_NOT_READ = {"en": "not read", "de": "nicht gelesen", "fr": "non lu", "es": "no leído", "it": "non letto"}
_WHY: dict[str, dict[str, str]] = {
    NO_IMAGES: {
        "de": "dieses Modell nimmt keine Bilder an",
        "fr": "ce modèle n'accepte pas les images",
        "es": "este modelo no acepta imágenes",
        "it": "questo modello non accetta immagini",
    },
    NOT_OPENAI: {
        "de": "paor gibt Bilder nur an OpenAI-kompatible Endpunkte weiter",
        "fr": "paor ne transmet les images qu'aux points d'accès compatibles OpenAI",
        "es": "paor solo envía imágenes a endpoints compatibles con OpenAI",
        "it": "paor invia immagini solo a endpoint compatibili con OpenAI",
    },
    NOT_ASKED: {
        "de": "der Endpunkt des Modells konnte nicht gefragt werden, ob er Bilder annimmt",
        "fr": "le point d'accès du modèle n'a pas pu être interrogé sur les images",
        "es": "no se pudo preguntar al endpoint del modelo si acepta imágenes",
        "it": "non è stato possibile chiedere all'endpoint del modello se accetta immagini",
    },
    UNREAD: {
        "de": "kein Schritt dieser Antwort hat es gelesen",
        "fr": "aucune étape de cette réponse ne l'a lu",
        "es": "ningún paso de esta respuesta lo leyó",
        "it": "nessun passo di questa risposta l'ha letto",
    },
}
#: What separates an image's name from why it was not read, in each language: `with_left_out` shows those notes.
_NOT_READ_MARKS = tuple(f" — {words}: " for words in _NOT_READ.values())
_PROBE_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"
_IMAGE_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


@dataclass(frozen=True)
class Read:
    """What a round took from a chat message's attachments."""

    request: ChatRequest  # those read in `attachments`, the others in `unreadable`, each with its reason
    documents: list[DocumentRef]

    @property
    def notes(self) -> list[str]:
        return left_out(self.request.unreadable)


def read_attachments(
    chat: ChatRequest, documents: DocumentStore, limit: int, why_no_images: Callable[[], str | None]
) -> Read:
    """Every attachment that can be read, as an input document under the checks of an upload; the round goes on
    without the others. An image is read unless `why_no_images` (`image_refusal`, asked only when an image is
    attached) says why the model cannot see it. DocumentRejected only when nothing attached could be read and no
    link was given: an answer without the very file it is about would mislead."""
    images = [part for part in chat.unreadable if isinstance(part, Image)]
    why = why_no_images() if images else None
    unread = [part for part in chat.unreadable if not isinstance(part, Image)]
    unread += [image.unseen(why) for image in images if why]
    offered = [(file, False) for file in chat.attachments] + [(image.content, True) for image in images if not why]
    read: list[Attachment] = []
    refs: list[DocumentRef] = []
    for attachment, is_image in offered:
        try:
            refs.append(_stored(attachment, documents, limit, is_image))
        except DocumentRejected as exc:
            unread.append(Rejected(attachment.name, str(exc)))
        else:
            read.append(attachment)
    if unread and not refs and not chat.urls:
        raise DocumentRejected("; ".join(str(part) for part in unread))
    return Read(replace(chat, attachments=read, unreadable=unread), refs)


def left_out(parts: Sequence[Unreadable], language: str = "en") -> list[str]:
    """The notes naming what a round went on without: an image as `not_read`, anything else after `LEFT_OUT`."""
    return [
        not_read(part.name, part.why, language) if isinstance(part, UnseenImage) else f"{LEFT_OUT}{part}"
        for part in parts
    ]


def not_read(name: str, why: str, language: str = "en") -> str:
    """The line naming an image the answer did not see, in `language` where paor has it: "chart.png — not read:
    this model does not accept images"."""
    return f"{name} — {_NOT_READ.get(language, _NOT_READ['en'])}: {_WHY.get(why, {}).get(language, why)}"


def with_left_out(answer: str, notes: Sequence[str]) -> str:
    """The answer with the attachments its round went on without below it: a chat user must learn what the
    answer did not see (the other notes stay in `notes`)."""
    shown = [note for note in notes if note.startswith(LEFT_OUT) or any(mark in note for mark in _NOT_READ_MARKS)]
    return "\n\n".join([answer, "\n".join(shown)]) if shown else answer


def closing_notes(state: State, entries: Sequence[HistoryEntry]) -> list[str]:
    """The round's notes, and a `not_read` line (`UNREAD`) for each input document it had to read that no step of
    `entries` (the round's) read (nodes/inputs_read.py). A one-call round's images are its bare call's
    (nodes/direct.py)."""
    notes = list(state.get("notes") or [])
    if state.get("direct"):
        return notes
    language = str((state.get("intent") or {}).get("language") or "en")
    unread = [not_read(ref.name, UNREAD, language) for ref in inputs_read.unread(state, entries)]
    return [*notes, *(line for line in unread if line not in notes)]


def sources_seen(
    refs: Sequence[DocumentRef], why_no_images: Callable[[], str | None]
) -> tuple[list[DocumentRef], list[UnseenImage]]:
    """The input documents a caller named (paths, URLs), without the images the model cannot see, and those images
    as the round leaves them out (`why_no_images` is asked only when there is one)."""
    images = [ref for ref in refs if ai_process.is_image(ref.mime)]
    why = why_no_images() if images else None
    if not why:
        return list(refs), []
    return [ref for ref in refs if ref not in images], [UnseenImage.of(ref.name, ref.mime, why) for ref in images]


def image_refusal(llm: BaseChatModel, store: BaseStore | None) -> str | None:
    """None where the endpoint accepts images, else why the model is not shown them. Asked once per endpoint with
    a one-pixel PNG and one output token, the answer kept beside its structured-output methods, so no run pays the
    probe twice; a failure that says nothing about images (a timeout, HTTP 429 or 503, a refusal of a setting) is
    not remembered."""
    if not isinstance(llm, ChatOpenAI):
        return NOT_OPENAI
    memory, key = Capabilities(store), endpoint_key(llm)
    accepted = memory.images(key)
    if accepted is None:
        accepted = _probe_images(llm)
        if accepted is None:
            return NOT_ASKED
        memory.remember_images(key, accepted)
    return None if accepted else NO_IMAGES


def _probe_images(llm: ChatOpenAI) -> bool | None:
    """True or False as the endpoint answered; None when its failure says nothing about images."""
    probe = HumanMessage(
        content=[
            {"type": "text", "text": "Reply with OK."},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{_PROBE_PNG}"}},
        ]
    )
    try:
        without_client_retries(llm).invoke([probe], **length_limit(llm, 1))
    except openai.APITimeoutError:
        return None  # no answer about images either way; the run's own calls meet the endpoint next
    except (openai.AuthenticationError, openai.PermissionDeniedError, openai.APIConnectionError) as exc:
        raise as_model_outage(exc, llm) from exc  # a refused key, or an endpoint that is away: no answer on images
    except openai.APIStatusError as exc:  # a "no" only where the refusal names images (not a setting, a length)
        return False if exc.status_code in REFUSED_STATUS and refusal_about("images", exc) else None
    return True


def image_type(data: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP image by its first bytes; None for anything else."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in _IMAGE_MAGIC if data.startswith(magic)), None)


def _stored(attachment: Attachment, store: DocumentStore, limit: int, image: bool) -> DocumentRef:
    data = attachment.data(limit)
    if not image:
        return store_checked(data, attachment.name, store)
    mime = image_type(data)
    if mime is None:
        raise DocumentRejected(f"{attachment.name} is not a PNG, JPEG, GIF or WebP image")
    return store.put(data, label=INPUT_LABEL, name=safe_file_name(attachment.name), mime=mime)


@dataclass(frozen=True)
class ChatRequest:
    """The newest human message of a thread that no round has taken yet."""

    message: HumanMessage
    text: str
    attachments: list[Attachment] = field(default_factory=list)
    links: list[Linked] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        """The input sources the message names (http(s) URLs, upload references)."""
        return [link.url for link in self.links]

    def lean(self) -> HumanMessage:
        """The message as checkpoints keep it: same id (so it replaces the sent one), attachments by name only."""
        taken = [*(a.name for a in self.attachments), *(link.name for link in self.links)]
        if not taken and not self.unreadable:
            return self.message
        blocks = [{"type": "text", "text": self.text}] if self.text else []
        if taken:
            blocks.append({"type": "text", "text": f"[attached as input documents: {', '.join(taken)}]"})
        if self.unreadable:
            names = ", ".join(u.name for u in self.unreadable)
            blocks.append({"type": "text", "text": f"[attached, not readable: {names}]"})
        return HumanMessage(content=blocks, id=self.message.id)  # type: ignore[arg-type]


def chat_request(state: State) -> ChatRequest | None:
    """The request of this round if it came as a message; None when `prompt` carries it."""
    human = next((m for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage)), None)
    if human is None or (human.id is not None and human.id == state.get("request_message")):
        return None
    content = human.content if isinstance(human.content, list) else [human.content]
    parts = [read_block(block, number) for number, block in enumerate(content, start=1)]
    return ChatRequest(
        human,
        "\n".join(p for p in parts if isinstance(p, str) and p.strip()),
        attachments=[p for p in parts if isinstance(p, Attachment)],
        links=[p for p in parts if isinstance(p, Linked)],
        unreadable=[p for p in parts if isinstance(p, Unreadable)],
    )
