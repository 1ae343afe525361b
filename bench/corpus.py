"""Fetch the document benchmark's corpus into `bench/corpus/` (git-ignored): real manuals, not fixtures.

- PDF manuals from Debian `-doc` packages, chosen for their different producers (pdfTeX, xdvipdfmx, dvipdfmx,
  DocBook via dblatex, groff via Ghostscript, LibreOffice): `apt-get download` then `dpkg-deb -x`, keeping only
  the listed files (gunzipped when Debian compressed them).
- The Office libraries' own test files (python-docx, python-pptx, openpyxl) from their sdists on PyPI:
  `pip download --no-deps --no-binary :all:`, keeping the .docx/.pptx/.xlsx files (openpyxl's sdist has none).

Run: `python -m bench.corpus` (needs apt and pip access; about 35 MB of downloads). Idempotent.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"

#: Debian package → files it ships (under usr/share/doc) that the benchmark reads, with their producer.
DEBIAN_PDFS: dict[str, list[str]] = {
    "packaging-tutorial": ["packaging-tutorial.fr.pdf"],  # pdfTeX (beamer slides), French
    "debmake-doc": ["debmake-doc.en.pdf"],  # xdvipdfmx (dblatex + XeLaTeX)
    "nut-doc": ["pdf/user-manual.pdf"],  # asciidoc → DocBook → dblatex
    "krb5-doc": ["admin.pdf.gz"],  # Sphinx → pdfTeX
    "glpk-doc": ["gmpl.pdf"],  # LaTeX → dvipdfmx, tables
    "gri-pdf-doc": [],  # texinfo → pdfTeX, 285 pages of code examples; all its PDFs
    "winff-doc": ["WinFF.en.pdf.gz"],  # LibreOffice
    "muttprint-manual": ["manual-en.pdf.gz"],  # LaTeX → pdfTeX
    "docbook-xsl-doc-pdf": ["docbook-xsl/reference.pdf.gz"],  # DocBook → dblatex → pdfTeX, ligatures
    "groff": ["pdf/pdfmark.pdf.gz"],  # groff → Ghostscript
    "debian-history": ["project-history.fr.pdf"],  # DocBook → dblatex → xdvipdfmx, French
}
#: PyPI sdist → extensions of its test files the benchmark reads.
OFFICE_SDISTS: dict[str, tuple[str, ...]] = {
    "python-docx": (".docx",),
    "python-pptx": (".pptx",),
    "openpyxl": (".xlsx",),
}


def fetch_debian(package: str, wanted: list[str], target: Path) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", package], cwd=tmp, check=True, capture_output=True)
        deb = next(Path(tmp).glob("*.deb"))
        root = Path(tmp) / "root"
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        found = [p for p in root.rglob("*") if p.is_file() and p.name.endswith((".pdf", ".pdf.gz"))]
        if wanted:
            found = [p for p in found if any(str(p).endswith(w) for w in wanted)]
        saved = []
        for path in found:
            out = target / f"{package}--{path.name.removesuffix('.gz')}"
            if path.suffix == ".gz":
                with gzip.open(path) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.copyfile(path, out)
            saved.append(out)
        return saved


def fetch_sdist(project: str, extensions: tuple[str, ...], target: Path) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp]
        subprocess.run(
            [*command, project],
            check=True,
            capture_output=True,
        )
        archive = next(Path(tmp).glob("*.tar.gz"))
        saved = []
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if (
                    member.isfile()
                    and member.name.lower().endswith(extensions)
                    and ("/tests/" in member.name or "/test_files/" in member.name)
                ):
                    data = tar.extractfile(member)
                    if data is None:
                        continue
                    out = target / f"{project}--{Path(member.name).name}"
                    out.write_bytes(data.read())
                    saved.append(out)
        return saved


def main() -> None:
    CORPUS.mkdir(exist_ok=True)
    (CORPUS / ".gitignore").write_text("*\n")
    for package, wanted in DEBIAN_PDFS.items():
        if any(CORPUS.glob(f"{package}--*")):
            continue
        try:
            print(package, [p.name for p in fetch_debian(package, wanted, CORPUS)])
        except (subprocess.CalledProcessError, StopIteration) as exc:
            print(f"{package}: not fetched ({exc})", file=sys.stderr)
    for project, extensions in OFFICE_SDISTS.items():
        if any(CORPUS.glob(f"{project}--*")):
            continue
        try:
            print(project, len(fetch_sdist(project, extensions, CORPUS)), "files")
        except (subprocess.CalledProcessError, StopIteration) as exc:
            print(f"{project}: not fetched ({exc})", file=sys.stderr)


if __name__ == "__main__":
    main()
