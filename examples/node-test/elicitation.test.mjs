// elicit-check from a server's own node:test suite (docs/src/from-tests.md).
//
// Copy this file into your tests and set the three values below (or the
// environment variables named beside them): the test runs `elicit-check check
// --json` on your server and fails unless every property holds, listing each
// failed property with its reason in the assertion message. Run it with
// `node --test`; vitest runs the same body inside its own `test` (import `test`
// and `assert` from "vitest" instead). The JSON report's shape is published in
// schemas/check-report.schema.json.
//
// Exit codes (docs/src/exit-codes.md): 0 every property holds, 1 a property
// fails, 2 the check could not be completed or was inconclusive; the report
// says which, and so does the message.

import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { test } from "node:test";

// Your server's command (stdio, as words), the tool that elicits, and what
// else `check` needs to know about it: where its result says it acted, the
// consent field. The environment variables hold JSON arrays of words.
// A variable replaces its default whole: ELICIT_CHECK_OPTIONS must hold
// --acted (and --arguments, --consent) too.
const SERVER = words("ELICIT_CHECK_SERVER", ["node", "server.mjs"]);
const TOOL = process.env.ELICIT_CHECK_TOOL ?? "delete_records";
const OPTIONS = words("ELICIT_CHECK_OPTIONS", ["--acted", "/deleted", "--consent", "/confirm=true"]);

/** A JSON array of words from `variable`, else `fallback`. */
function words(variable, fallback) {
  const text = process.env[variable];
  if (text === undefined) return fallback;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${variable} is not a JSON array of words: ${error.message}: ${text}`);
  }
  if (!Array.isArray(value) || !value.every((word) => typeof word === "string")) {
    throw new Error(`${variable} is not a JSON array of words: ${text}`);
  }
  return value;
}

/**
 * One line per warning of a checked era's properties, e.g. `2025-11-25 P7
 * warning: `confirm` reads as a consent field ...`.
 */
export function warningLines(report) {
  const lines = [];
  for (const era of report.eras ?? []) {
    for (const line of era.report?.properties ?? []) {
      for (const warning of line.warnings ?? []) {
        lines.push(`${era.protocol} P${line.property} warning: ${warning}`);
      }
    }
  }
  return lines;
}

/** The `elicit-check` to run: $ELICIT_CHECK, else the one on PATH. */
const BINARY = process.env.ELICIT_CHECK ?? "elicit-check";

/**
 * One line per era that could not be judged and per property that did not
 * hold, e.g.
 * `2025-11-25 P7 (never acts without a valid consenting answer): fails: acted
 * on a valid accept that did not consent: ...`.
 */
export function findings(report) {
  if (!report.eras) {
    return [`the check could not start: ${report.error ?? "no report"}`];
  }
  const lines = [];
  const checkedAny = report.eras.some((era) => era.report);
  for (const era of report.eras) {
    if (!era.report) {
      // An era the server does not speak is no finding while another was checked.
      if (era.status !== "not_checked" || !checkedAny) {
        lines.push(`${era.protocol}: ${era.status}: ${era.why ?? "no report"}`);
      }
      continue;
    }
    if (era.report.health?.inconclusive) {
      lines.push(`${era.protocol}: inconclusive: ${era.report.health.inconclusive}`);
    }
    for (const line of era.report.properties) {
      if (line.verdict === "holds" || line.verdict === "untested") continue;
      const reason = line.failure?.reason;
      lines.push(
        `${era.protocol} P${line.property} (${line.statement}): ${line.verdict}` +
          (reason ? `: ${reason}` : ""),
      );
    }
  }
  return lines;
}

test("the tool acts only on a valid consenting accept", (t) => {
  const done = spawnSync(BINARY, ["check", "--json", "--tool", TOOL, ...OPTIONS, "--", ...SERVER], {
    encoding: "utf8",
    timeout: 600_000,
  });
  assert.ok(
    done.error === undefined,
    `cannot run ${BINARY}: ${done.error?.message}; install it (README, Install) or set ELICIT_CHECK to the binary`,
  );
  assert.ok(done.stdout, `no report (exit ${done.status}): ${done.stderr}`);
  const report = JSON.parse(done.stdout);
  // Warnings (a field that reads as consent but was not declared with
  // --consent, a lenient answer acted on) do not fail the test: shown as
  // the test's diagnostics.
  for (const warning of warningLines(report)) t.diagnostic(warning);
  assert.ok(
    done.status === 0 && report.passed,
    [`elicit-check exit ${done.status}, outcome ${report.outcome}:`, ...findings(report)].join("\n"),
  );
});
