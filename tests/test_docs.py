"""The repository carries its own rule book and record format (docs/rules.md, docs/record.md):
every rule id the code and the scenarios use is in the rule book, every field the engine writes in
a record is documented, nothing reads the developers' shared folder, and relative links resolve."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from paths import ROOT

from crisp.engine.crisp import Options
from crisp.engine.crisp.game import Game

RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
RECORD = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
RULE_ID = re.compile(r"\bR-[A-Z]+(?:-[A-Z]+)*\b")


def tracked(pattern: str) -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", pattern], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def test_every_rule_id_in_use_is_defined_in_the_rule_book() -> None:
    """R-TURN and every other id the engine refuses with, or a scenario names, is a rule of
    docs/rules.md (written **R-ID** where it is defined)."""
    defined = set(re.findall(r"\*\*(R-[A-Z-]+)\*\*", RULES))
    used: set[str] = set()
    for path in (ROOT / "crisp").rglob("*.py"):
        used |= set(re.findall(r'IllegalAction\(\s*"(R-[A-Z-]+)"', path.read_text("utf-8")))
    for path in (ROOT / "tests" / "scenarios").glob("*.json"):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        used |= set(scenario.get("rules", []))
        used |= {scenario.get("expect", {}).get("error", {}).get("rule")} - {None}
    assert {"R-TURN", "R-WINDOW", "R-SPECIAL"} <= used
    assert not used - defined, f"not in docs/rules.md: {sorted(used - defined)}"
    assert set(RULE_ID.findall(RULES)) == defined, "an id is cited but never defined"


def test_every_round_field_the_engine_writes_is_documented() -> None:
    """A record written by the engine after clock hooks and a timeout has the round fields
    `dealer`, `deck`, `actions`, `clock` and `end`: each is documented in docs/record.md, and so
    is each field of a clock entry."""
    game = Game(["Ana", "Ben"], Options(timer=30), seed=4)
    game.start_round()
    game.set_absent(1, 12.0, 1.0)
    game.restart_clock(2.0)
    game.advance(120)  # both seats time out, turn after turn
    record = game.record()
    fields = {key for rnd in record["rounds"] for key in rnd}
    entry_fields = {key for rnd in record["rounds"] for c in rnd.get("clock", []) for key in c}
    scenario = json.loads((ROOT / "tests/scenarios/final-turn-timeout-end-field.json").read_text())
    fields |= {key for rnd in scenario["record"]["rounds"] for key in rnd}
    assert {"dealer", "deck", "actions", "clock", "end"} <= fields
    assert {"after", "t", "do", "seat", "until"} <= entry_fields
    for key in sorted(fields | entry_fields | set(record)):
        assert f"`{key}`" in RECORD, f"docs/record.md does not name `{key}`"
    assert "### The round's `clock` list" in RECORD


def test_nothing_reads_the_shared_folder() -> None:
    """The rule book and the record format are read from docs/, never from the developers'
    shared folder beside the repository (a user's clone has none)."""
    suffixes = {".py", ".md", ".sh", ".toml", ".yaml", ".json", ".html", ".js", ""}
    files = [p for p in tracked("*") if p.suffix in suffixes and p != Path(__file__).resolve()]
    assert ROOT / "tests" / "client" / "test_client_i18n.py" in files
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"\.\./shared\b|/work/shared|shared/(RULES|RECORD)\.md", text)
        assert not found, f"{path.relative_to(ROOT)} reads {found.group(0)}"


def test_relative_links_of_the_docs_resolve() -> None:
    """Every relative link of the README and docs/*.md names a file of the repository (the
    rule book and the record format included)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    targets = set()
    for page in pages:
        for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:|#", link):
                continue
            target = (page.parent / link.split("#")[0]).resolve()
            assert target.exists(), f"{page.relative_to(ROOT)}: broken link {link}"
            targets.add(target.relative_to(ROOT).as_posix())
    assert {"docs/rules.md", "docs/record.md"} <= targets


OPERATING = ROOT / "docs" / "operating.md"


def test_configuration_reference_is_generated_from_the_settings() -> None:
    """docs/operating.md's configuration reference is
    tools/settings_doc.py's table of crisp/server/settings.py, between its markers; a setting
    added, renamed or given a new default without regenerating it fails here. Every setting has a
    row and a description."""
    from crisp.server.settings import Settings
    from tools import settings_doc

    page = OPERATING.read_text(encoding="utf-8")
    start = page.index(settings_doc.BEGIN) + len(settings_doc.BEGIN)
    committed = page[start : page.index(settings_doc.END)]
    assert committed == "\n" + settings_doc.table(), (
        f"docs/operating.md's configuration reference is stale: run `{settings_doc.COMMAND}`"
    )
    for name, info in Settings.model_fields.items():
        assert f"| `CRISP_{name.upper()}` |" in committed
        assert info.description, f"the setting {name} has no description"


def test_readme_is_short_and_the_operators_and_contributors_parts_moved() -> None:
    """The README says what Crisp is, the two commands, how to play,
    and links; the operator's part is docs/operating.md (deploy with and without Docker, TLS,
    proxies, the reference, backup, upgrade, monitoring, scale-out with the PostgreSQL role and
    database made outside Docker), the contributor's docs/contributing.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < 8_000
    assert "./scripts/serve" in readme and "./scripts/test" in readme
    assert "(docs/operating.md)" in readme and "(docs/contributing.md)" in readme
    operating = OPERATING.read_text(encoding="utf-8")
    for heading in (
        "## Run with Docker",
        "## Host it on the internet (Docker and Caddy)",
        "## Without Docker: systemd and Caddy",
        "## Proxies and the client's address",
        "## Configuration reference",
        "## Backup and restore",
        "## Upgrades",
        "## Monitoring",
        "## Scale out: several nodes on PostgreSQL",
    ):
        assert heading in operating, heading
    for fact in (
        "createuser",
        "createdb",
        "CRISP_DATABASE_URL=postgresql://",
        "pg_dump -Fc",
        "pg_restore",
        "crisp backup",
        "crisp restore",
        "deploy/crisp.service",
        "CRISP_FORWARDED_ALLOW_IPS",
        "CRISP_LOG_FORMAT=json",
        "/readyz",
        "/metrics",
    ):
        assert fact in operating, fact
    contributing = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    for heading in (
        "## Layout",
        "## The server",
        "## Bots",
        "## The phone client",
        "## How the engine works, in short",
        "## Performance and soak",
        "## Development",
    ):
        assert heading in contributing, heading


def test_backup_is_said_one_way() -> None:
    """The README says one thing of backups, never a running server copied in one section and
    stopped in another: the one backup section says: a running server with the online
    backup (`crisp backup`), a stopped one by copying its files, never a running one's files."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "To back it up, stop the server and copy" not in text, page.name
    operating = OPERATING.read_text(encoding="utf-8")
    assert "Never copy the files of a running server by hand" in operating
