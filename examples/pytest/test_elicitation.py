"""elicit-check from a server's own pytest suite (docs/src/from-tests.md).

Copy this file into your tests and set the three values below (or the
environment variables named beside them): the test runs `elicit-check check
--json` on your server and fails unless every property holds, listing each
failed property with its reason in the assertion message. The JSON report's
shape is published in schemas/check-report.schema.json.

Exit codes (docs/src/exit-codes.md): 0 every property holds, 1 a property
fails, 2 the check could not be completed or was inconclusive; the report
says which, and so does the message.
"""

import json
import os
import shutil
import subprocess
import warnings

# Your server's command (stdio, as words), the tool that elicits, and what
# else `check` needs to know about it: where its result says it acted, the
# consent field. The environment variables hold JSON arrays of words.
# A variable replaces its default whole: ELICIT_CHECK_OPTIONS must hold
# --acted (and --arguments, --consent) too.


def words(variable, default):
    """A JSON array of words from `variable`, else `default`."""
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise AssertionError(f"{variable} is not a JSON array of words: {error}: {text}") from None
    assert isinstance(value, list) and all(isinstance(word, str) for word in value), (
        f"{variable} is not a JSON array of words: {text}"
    )
    return value


SERVER = words("ELICIT_CHECK_SERVER", ["python", "server.py"])
TOOL = os.environ.get("ELICIT_CHECK_TOOL", "delete_records")
OPTIONS = words("ELICIT_CHECK_OPTIONS", ["--acted", "/deleted", "--consent", "/confirm=true"])


def elicit_check_binary():
    """The `elicit-check` to run: $ELICIT_CHECK, else the one on PATH."""
    found = os.environ.get("ELICIT_CHECK") or shutil.which("elicit-check")
    assert found, (
        "elicit-check is not on PATH: install it (README, Install) "
        "or set ELICIT_CHECK to the binary"
    )
    return found


def findings(report):
    """One line per era that could not be judged and per property that did
    not hold, e.g. `2025-11-25 P7 (never acts without a valid consenting
    answer): fails: acted on a valid accept that did not consent: ...`."""
    if "eras" not in report:
        return [f"the check could not start: {report.get('error', 'no report')}"]
    lines = []
    checked_any = any(era.get("report") is not None for era in report["eras"])
    for era in report["eras"]:
        protocol = era["protocol"]
        if era.get("report") is None:
            # An era the server does not speak is no finding while another was checked.
            if era["status"] != "not_checked" or not checked_any:
                lines.append(f"{protocol}: {era['status']}: {era.get('why') or 'no report'}")
            continue
        health = era["report"].get("health") or {}
        if health.get("inconclusive"):
            lines.append(f"{protocol}: inconclusive: {health['inconclusive']}")
        for line in era["report"]["properties"]:
            if line["verdict"] in ("holds", "untested"):
                continue
            reason = (line.get("failure") or {}).get("reason", "")
            lines.append(
                f"{protocol} P{line['property']} ({line['statement']}): {line['verdict']}"
                + (f": {reason}" if reason else "")
            )
    return lines


def warning_lines(report):
    """One line per warning of a checked era's properties, e.g. `2025-11-25 P7
    warning: `confirm` reads as a consent field ...`."""
    lines = []
    for era in report.get("eras", []):
        for line in (era.get("report") or {}).get("properties", []):
            for warning in line.get("warnings", []):
                lines.append(f"{era['protocol']} P{line['property']} warning: {warning}")
    return lines


def test_the_tool_acts_only_on_a_valid_consenting_accept():
    command = [elicit_check_binary(), "check", "--json", "--tool", TOOL, *OPTIONS, "--", *SERVER]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.stdout, f"no report (exit {done.returncode}): {done.stderr}"
    report = json.loads(done.stdout)
    # Warnings (a field that reads as consent but was not declared with
    # --consent, a lenient answer acted on) do not fail the test: pytest lists
    # them in its warnings summary.
    for warning in warning_lines(report):
        warnings.warn(warning, UserWarning, stacklevel=1)
    problems = findings(report)
    assert done.returncode == 0 and report["passed"], "\n".join(
        [f"elicit-check exit {done.returncode}, outcome {report.get('outcome')}:", *problems]
    )
