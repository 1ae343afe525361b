"""Every protocol object of paor, defined once.

Prompts render their JSON shapes from these models, parsers validate model output with them, state stores their
JSON dumps, and tests build fixtures from them. Field names follow the spec (camelCase) because they are the wire
format the model sees.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Keys Stage 1 may not put in a parameters schema and Stage 2 may not answer: the host resolves them itself.
FORBIDDEN_PARAMETER_KEYS: frozenset[str] = frozenset(
    {"documentList", "connectionReference", "history", "documents", "connections"}
)

#: Language names, as written and folded, and the ISO 639-1 code each names: the intent's `language` field is read
#: by them, and a request's "in German" or "ins Französische" (nodes/reading/hints.py).
LANGUAGE_NAMES = {
    name: code
    for code, names in {
        "en": "english englisch anglais inglés ingles inglese",
        "de": "german deutsch allemand alemán aleman tedesco",
        "fr": "french français francais französisch francés frances francese",
        "it": "italian italiano italienisch italien",
        "es": "spanish español espanol espagnol spanisch spagnolo",
        "pt": "portuguese portugiesisch portugais portugués portugues portoghese",
        "nl": "dutch niederländisch néerlandais neerlandais holandés holandes olandese",
        "ja": "japanese",
        "zh": "chinese",
    }.items()
    for name in names.split()
}
PREVIEW_LIMIT = 5
SNIPPET_CHARS = 300


class Protocol(BaseModel):
    """Base for wire objects: unknown keys are ignored, names stay as the spec spells them."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    #: Upper bound of a model's answer of this shape (`max_tokens` of the call): a runaway generation is cut here.
    answer_tokens: ClassVar[int] = 1024


def _ratio(value: Any) -> Any:
    """A ratio given as a percentage (95 for 0.95) is read as one; anything else is left to the bounds check."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 1 < value <= 100:
        return value / 100
    return value


# --- Step 1: intent ---------------------------------------------------------------------------------------------


class QualityRequirements(Protocol):
    accuracy: float = Field(0.9, ge=0, le=1, description="Required correctness, 0..1.")
    completeness: float = Field(0.9, ge=0, le=1, description="Required coverage of the request, 0..1.")

    _percent_as_ratio = field_validator("accuracy", "completeness", mode="before")(_ratio)


DataType = Literal["numbers", "list", "table", "text", "document", "report", "analysis", "code", "answer"]
ExpectedFormat = Literal["raw_data", "markdown", "json", "csv", "html", "docx", "pdf", "xlsx", "code", "text"]
#: Formats for programs, not people: a deliverable takes one only when the user asked for it (spec rule).
MACHINE_READABLE_FORMATS = frozenset({"json", "csv"})
#: Formats that are files, not text: only words of the request that name the output ask for one.
FILE_FORMATS = frozenset({"docx", "pdf", "xlsx", "html"})


class Clarification(Protocol):
    """A question the request cannot be served sensibly without (issue 15), with up to four suggested answers."""

    question: str = Field(min_length=1, description="One short question to the user.")
    suggestions: list[str] = Field(default_factory=list, max_length=4, description="Up to 4 likely answers.")


#: The criterion of a request nobody named a criterion for: a question for the judge, no instruction to a writer
#: (it only restates the request, and a small model copies it as its answer).
GENERIC_CRITERION = "the deliverable answers the request"


class Intent(Protocol):
    """What the user really wants (spec 5, step 1)."""

    answer_tokens: ClassVar[int] = 512

    dataType: DataType = Field(description="Kind of deliverable the user wants.")
    expectedFormat: ExpectedFormat = Field(description="Shape of the deliverable.")
    successCriteria: list[str] = Field(default_factory=list, description="Checkable conditions of success.")
    qualityRequirements: QualityRequirements = Field(default_factory=lambda: QualityRequirements())
    language: str = Field("en", description="ISO 639-1 code of the language the deliverable must be in.")
    itemCount: int | None = Field(None, ge=1, description="Number of items asked for ('first 1000'), if any.")
    numberProperty: str | None = Field(None, description="Property every number must have ('prime'), if any.")
    freshness: Literal["day", "week", "month", "year"] | None = Field(
        None, description="How recent sources must be, only when the request implies it."
    )
    clarification: Clarification | None = Field(
        None,
        description="Only when the request cannot be served sensibly without an answer (no subject, conflicting "
        "formats): the question to ask. Otherwise null: assume what is most likely.",
    )

    @field_validator("clarification", mode="before")
    @classmethod
    def _empty_question_is_none(cls, value: Any) -> Any:
        """Models that must answer every key send `{"question": ""}` for "nothing to ask": no question, not an error."""
        if isinstance(value, dict) and not str(value.get("question") or "").strip():
            return None
        return value

    @field_validator("language")
    @classmethod
    def _short_language(cls, value: str) -> str:
        """Models answer 'de', 'de-CH' or 'German'; keep the ISO 639-1 code (letters only: it names a store
        namespace of what direct answers learned, nodes/direct_lessons.py)."""
        text = value.strip().lower()
        code = LANGUAGE_NAMES.get(text) or text.replace("_", "-").split("-")[0][:2]
        return code if code.isalpha() else "en"


# --- Stage 1: action selection ----------------------------------------------------------------------------------


class ParameterField(Protocol):
    name: str = Field(min_length=1)
    type: Literal["string", "number", "integer", "boolean", "enum", "object", "array"] = "string"
    required: bool = False
    description: str = ""


class ParametersSchema(Protocol):
    fields: list[ParameterField] = Field(default_factory=list)

    @model_validator(mode="after")
    def _no_host_resolved_fields(self) -> ParametersSchema:
        named = sorted({f.name for f in self.fields} & FORBIDDEN_PARAMETER_KEYS)
        if named:
            raise ValueError(
                f"parametersSchema must not contain {', '.join(named)}: document and connection references "
                "go in requiredInputDocuments/requiredConnection, history is the host's"
            )
        return self


class ActionSelection(Protocol):
    """Stage 1: exactly one action, its objective and references — never parameter values."""

    answer_tokens: ClassVar[int] = 768

    action: str = Field(description="Compound name method.action from the catalog, e.g. ai.process.")
    actionObjective: str = Field(min_length=1, description="What this one action must achieve.")
    learnings: list[str] = Field(default_factory=list, description="What earlier steps taught.")
    requiredInputDocuments: list[str] = Field(
        default_factory=list,
        description="References from the documents index: docList:<label> or docItem:<ref>.",
    )
    requiredConnection: str | None = Field(None, description="Connection label, or null.")
    parametersContext: str = Field("", description="Concise text Stage 2 uses to set the parameters.")
    parametersSchema: ParametersSchema = Field(default_factory=ParametersSchema)

    @field_validator("requiredInputDocuments")
    @classmethod
    def _references_only(cls, refs: list[str]) -> list[str]:
        bad = [r for r in refs if not (r.startswith("docList:") or r.startswith("docItem:"))]
        if bad:
            raise ValueError(f"requiredInputDocuments must be docList:/docItem: references, not {bad}")
        return refs


# --- Stage 2: parameters ----------------------------------------------------------------------------------------


class ParametersAnswer(Protocol):
    """Stage 2: business parameters for the selected action only."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, protected_namespaces=())

    schema_: Literal["parameters_v1"] = Field("parameters_v1", alias="schema")
    parameters: dict[str, Any] = Field(default_factory=dict)


# --- Act / observe ----------------------------------------------------------------------------------------------


class DocumentRef(Protocol):
    """A stored document, by reference: checkpoints hold these, never the bytes."""

    label: str = Field(description="Result label (or 'input') the document belongs to.")
    name: str
    mime: str
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @property
    def item_reference(self) -> str:
        return f"docItem:{self.label}/{self.name}"

    @property
    def is_text(self) -> bool:
        """Readable as UTF-8 text (markdown, CSV, JSON, XML…) rather than a binary format (PDF, DOCX…)."""
        return self.mime.startswith(("text/", "application/json", "application/xml"))


#: How a result's `error` starts when the user rejected the action at approval (nodes/approval.py): the action never
#: ran, and the words after it are the user's, not paor's.
REJECTED_BY_USER = "rejected by the user: "


class ActionResult(Protocol):
    success: bool
    resultLabel: str
    documents: list[DocumentRef] = Field(default_factory=list)
    summary: str = ""
    notes: list[str] = Field(default_factory=list)
    error: str | None = None
    #: False when paor could not call the tool (configuration, registration, connection, arguments refused before
    #: it ran): a failure of paor's, which learning holds against no strategy.
    called: bool = True
    #: The user's reason when they rejected the action at approval (it never ran); None otherwise.
    rejected: str | None = None


class Preview(Protocol):
    name: str
    mime: str
    snippet: str = Field(max_length=SNIPPET_CHARS + 1)


class Observation(Protocol):
    """Compact result the model sees instead of raw payloads (spec 2)."""

    success: bool
    resultLabel: str
    documentsCount: int = Field(ge=0)
    previews: list[Preview] = Field(default_factory=list, max_length=PREVIEW_LIMIT)
    notes: list[str] = Field(default_factory=list)


class ContentValidation(Protocol):
    """Delivered content checked against the intent (spec 5, step 3)."""

    overallSuccess: bool
    dataTypeMatch: bool
    formatMatch: bool
    successCriteriaMet: list[bool] = Field(default_factory=list)
    qualityScore: float = Field(ge=0, le=1)
    issues: list[str] = Field(default_factory=list)
    improvementSuggestions: list[str] = Field(default_factory=list)
    #: What code decided, apart from any judge: a later attempt replaces the delivered answer only when it passes a
    #: check the earlier one failed and fails none the earlier one passed (nodes/answers.py).
    checksPassed: list[str] = Field(default_factory=list)
    checksFailed: list[str] = Field(default_factory=list)
    #: Every criterion got a verdict: from code, or from the judge a loop step asked (a direct answer gets none).
    #: Only such a success is a verified one; learning counts no other, and a round with undecided criteria ends
    #: `unverified`.
    verified: bool = False


class ContentJudgement(Protocol):
    """The model's verdict on what deterministic checks could not decide, and in the same answer the refinement
    decision: the judge already knows which criteria are unmet and what to change, so one call answers both
    (validate turns it into the spec's ContentValidation and RefinementDecision)."""

    answer_tokens: ClassVar[int] = 512

    criteriaMet: list[bool] = Field(description="One verdict per listed criterion, in order.")
    qualityScore: float = Field(ge=0, le=1)

    _percent_as_ratio = field_validator("qualityScore", mode="before")(_ratio)
    issues: list[str] = Field(default_factory=list)
    improvementSuggestions: list[str] = Field(default_factory=list)
    decision: Literal["continue", "stop"] = Field(
        "continue", description="stop only when no further action can improve the result"
    )


# --- Learn / refine ---------------------------------------------------------------------------------------------


class Strategy(Protocol):
    """What worked (and what to avoid) for one intent pattern (spec 5, step 4)."""

    pattern: str
    successfulAction: str | None = None
    promptStyle: str | None = None
    avoid: list[str] = Field(default_factory=list)
    attempts: int = 0
    successes: int = 0
    successRate: float = 0.0
    lastUpdated: str = ""


class RefinementDecision(Protocol):
    decision: Literal["continue", "stop"]
    reason: str = Field(min_length=1)
    progress: int = Field(0, ge=0, le=100)
    nextHint: str | None = None


# --- History and telemetry --------------------------------------------------------------------------------------


class HistoryEntry(Protocol):
    """One finished (or failed) step as later prompts see it."""

    round: int
    task: int = 1
    step: int
    action: str | None = None
    actionObjective: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    resultLabel: str | None = None
    documents: list[DocumentRef] = Field(default_factory=list)
    success: bool = False
    outcome: Literal["met", "progress", "failed", "judging"] | None = Field(
        None,
        description="met: criteria met; progress: usable intermediate result; failed: the approach failed; judging: "
        "delivered, its judgement not in yet (only in the prompt of a Stage 1 chosen ahead, never recorded).",
    )
    qualityScore: float = 0.0
    summary: str = ""
    findings: list[str] = Field(default_factory=list)
    learnings: list[str] = Field(default_factory=list)
    #: The code checks this step's deliverable passed and failed, and whether every criterion got a verdict.
    checksPassed: list[str] = Field(default_factory=list)
    checksFailed: list[str] = Field(default_factory=list)
    verified: bool = False
    #: The user's reason when they rejected this step's action at approval (the action never ran; outcome failed).
    #: A rejected action is not proposed again in its round.
    rejected: str | None = None

    @model_validator(mode="after")
    def _default_outcome(self) -> HistoryEntry:
        if self.outcome is None:
            self.outcome = "met" if self.success else "failed"
        return self


class TelemetryRecord(Protocol):
    node: str
    round: int
    step: int
    durationS: float = Field(ge=0)
    inputTokens: int = 0
    outputTokens: int = 0


# --- Actionplan (legacy) mode -----------------------------------------------------------------------------------


class PlannedAction(Protocol):
    action: str
    actionObjective: str = ""
    requiredInputDocuments: list[str] = Field(default_factory=list)
    parameters: dict[str, Any] = Field(default_factory=dict)


class ActionPlan(Protocol):
    answer_tokens: ClassVar[int] = 2048

    actions: list[PlannedAction] = Field(min_length=1)


def dump(model: BaseModel) -> dict[str, Any]:
    """JSON-safe dict of a protocol object, as stored in state and checkpoints."""
    return model.model_dump(mode="json", by_alias=True)
