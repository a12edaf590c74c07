"""Pure text rules: the fixture file format and how a document body is cut into chunks. No ORM."""

from __future__ import annotations

import re
from dataclasses import dataclass

CHUNK_MIN_CHARS = 200
CHUNK_MAX_CHARS = 500
FRONT_MATTER_KEYS = ("doc_id", "title", "kind")

_FRONT_LINE = re.compile(r"^([a-z_]+)\s*:\s*(.*)$")
_HEADING = re.compile(r"^#{1,6}\s+")
# A sentence ends at . ! ? followed by whitespace, or at a line break (list items).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class DocumentFormatError(ValueError):
    pass


@dataclass(frozen=True)
class DocumentSource:
    doc_id: str
    title: str
    kind: str  # as written: POLICY/GUIDE/NOTICE or 정책/가이드/공지; the service maps it
    body: str


def document_parse(text: str, *, source: str = "") -> DocumentSource:
    """`key: value` lines at the top (optionally fenced by ---), a blank line, then the body."""
    lines = text.replace("\r\n", "\n").lstrip("\ufeff").split("\n")
    meta: dict[str, str] = {}
    i = 0
    fenced = bool(lines) and lines[0].strip() == "---"
    if fenced:
        i = 1
    while i < len(lines):
        line = lines[i].strip()
        if fenced and line == "---":
            i += 1
            break
        if not line:
            if meta and not fenced:
                break
            i += 1
            continue
        match = _FRONT_LINE.match(line)
        if not match:
            break
        meta[match.group(1)] = match.group(2).strip()
        i += 1
    missing = [key for key in FRONT_MATTER_KEYS if not meta.get(key)]
    if missing:
        raise DocumentFormatError(f"{source or 'document'}: front matter is missing {', '.join(missing)}")
    body = "\n".join(lines[i:]).strip()
    if not body:
        raise DocumentFormatError(f"{source or 'document'}: body is empty")
    return DocumentSource(doc_id=meta["doc_id"], title=meta["title"], kind=meta["kind"], body=body)


def _blocks(body: str) -> list[str]:
    """Blank-line separated paragraphs; a heading line is always a block of its own."""
    blocks: list[str] = []
    for raw in re.split(r"\n\s*\n", body.replace("\r\n", "\n")):
        paragraph: list[str] = []
        for line in raw.strip().split("\n"):
            if _HEADING.match(line.strip()):
                if paragraph:
                    blocks.append("\n".join(paragraph).strip())
                    paragraph = []
                blocks.append(line.strip())
            elif line.strip():
                paragraph.append(line.rstrip())
        if paragraph:
            blocks.append("\n".join(paragraph).strip())
    return blocks


def _split_long(paragraph: str, max_chars: int) -> list[str]:
    """Sentences packed up to max_chars; a single sentence longer than that is cut hard."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        sentence = sentence.strip()
        if not sentence:
            continue
        while len(sentence) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:max_chars])
            sentence = sentence[max_chars:]
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def _sections(body: str) -> list[tuple[str, list[str]]]:
    """[(heading line or "", paragraphs)] in order; text before the first heading has heading ""."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for block in _blocks(body):
        if _HEADING.match(block):
            sections.append((block, []))
        else:
            sections[-1][1].append(block)
    return [(heading, paragraphs) for heading, paragraphs in sections if heading or paragraphs]


def _joined(parts: list[str]) -> str:
    return "\n\n".join(parts)


def chunk_body(body: str, *, min_chars: int = CHUNK_MIN_CHARS, max_chars: int = CHUNK_MAX_CHARS) -> list[str]:
    """Cut a Markdown-ish body into chunks of about min_chars..max_chars that follow its sections.

    - A section (heading + its paragraphs) that fits in max_chars stays whole in one chunk; short
      sections are merged with the following ones while the chunk is under min_chars and still fits.
    - A section too long for one chunk is packed paragraph by paragraph, and every chunk of it starts
      with the section heading, so a cited chunk still says what it is about.
    - Paragraphs (blank-line separated) are split only when one alone exceeds max_chars: by sentences,
      then hard at max_chars.
    - A short tail is merged into the previous chunk when the two fit in max_chars.
    """
    chunks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            chunks.append(_joined(current))
            current.clear()

    for heading, paragraphs in _sections(body):
        section = ([heading] if heading else []) + paragraphs
        text = _joined(section)
        if len(text) <= max_chars:
            if current and (len(_joined(current)) >= min_chars or len(_joined(current)) + 2 + len(text) > max_chars):
                flush()
            current.extend(section)
            continue
        flush()
        prefix = [heading] if heading and len(heading) < max_chars // 2 else []
        pieces: list[str] = []
        for paragraph in paragraphs:
            limit = max_chars - (len(heading) + 2 if prefix else 0)
            pieces.extend([paragraph] if len(paragraph) <= limit else _split_long(paragraph, limit))
        for piece in pieces:
            if current and len(_joined([*current, piece])) > max_chars:
                flush()
            if not current:
                current.extend(prefix)
            current.append(piece)
        flush()  # the next section starts a new chunk
    flush()

    if len(chunks) >= 2 and len(chunks[-1]) < min_chars and len(chunks[-2]) + 2 + len(chunks[-1]) <= max_chars:
        tail = chunks.pop()
        chunks[-1] = chunks[-1] + "\n\n" + tail
    return chunks


_MD_LINE_MARKS = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)", flags=re.M)
# Single `_` is left alone: it also joins words (file_name), and Korean glues particles right after emphasis.
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|~~|`)(?=\S)(.+?)(?<=\S)\1")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_RULE = re.compile(r"^\s{0,3}(?:[-*_]\s*){3,}$|^\s*\|?\s*:?-{3,}.*$", flags=re.M)


def markdown_plain(text: str) -> str:
    """A chunk as people read it when quoted in one line: headings, list and quote marks, emphasis, links and
    rules removed, the words kept, lines joined by a space."""
    text = _MD_RULE.sub("", text)
    text = _MD_LINE_MARKS.sub("", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_EMPHASIS.sub(r"\2", text)
    text = text.replace("|", " ")
    return " ".join(text.split())
