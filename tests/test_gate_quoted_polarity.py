"""A summary quotes its sources' words with their polarity (docs/gate.md, I1 — "quoted
polarity"): a quotation whose every occurrence in the block's sources stands under a negation of
its clause is refused where the summary drops the negation, and the other way round. The
quotation rule denies only the words right after a negation, so the user's ``Do not run "make
deploy"`` summarized as ``The user asked to run "make deploy"`` was accepted. The suite runs
once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with, summary

from provgate.gate import (
    _FENCE_POINTER_ABOVE,
    _FENCE_POINTER_BELOW,
    Gate,
    _blocked_as_prohibition,
    _clause_negated,
    _command_quoted,
    _fence_instruction_negated,
)


def _summarize(source: str, text: str, *, role: str = "user"):
    store = store_with({"src:1": source})
    pre = [blk("b1", role, source, ["src:1"])]
    return Gate(store).check(pre, [summary("s1", text, ["src:1"])], operator="summarize")


@pytest.mark.parametrize("source, text, value, change", [
    ('Do not run "make deploy" today.', 'The user asked to run "make deploy" today.', "make deploy",
     "negation_dropped"),
    ('Avoid "git push --force" on shared branches.', 'The user asked to use "git push --force" on shared branches.',
     "git push --force", "negation_dropped"),
    ('There is no need to run "make clean" first.', 'Run "make clean" first.', "make clean", "negation_dropped"),
    ('The build did not run "make test" because it was skipped.', 'The build ran "make test".', "make test",
     "negation_dropped"),
    ('You must never open "/etc/shadow" on the host.', 'The user asked me to open "/etc/shadow".', "/etc/shadow",
     "negation_dropped"),
    ('Run "make deploy" after the tests pass.', 'The user said never to run "make deploy".', "make deploy",
     "negation_added"),
    ('Please use "git rebase -i" to tidy the branch.', 'The user forbade "git rebase -i".', "git rebase -i",
     "negation_added"),
])
def test_a_quotation_turned_against_its_sources_is_refused(source, text, value, change):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change=change)


@pytest.mark.parametrize("source, text", [
    ('Don\'t forget to run "make deploy" after merging.', 'The user reminded me to run "make deploy" after merging.'),
    ('If the tests don\'t pass, run "make rollback".', 'If tests fail, run "make rollback".'),
    ('I ran "make deploy" but it did not finish.', 'The agent ran "make deploy"; it did not finish.'),
    ('Do not run "make deploy" until the tests pass.', 'The user said not to run "make deploy" until tests pass.'),
    ("$ make deploy\nerror: not authorized", 'Running "make deploy" failed: not authorized.'),
    ('You can\'t use "git push --force" here, use "git push --force-with-lease" instead.',
     'Use "git push --force-with-lease" instead of "git push --force".'),
    ('No errors when running "npm test".', 'No errors came from "npm test".'),
    ('Never run "rm -rf /" on the host.', 'The user forbade running "rm -rf /" on the host.'),
    ('Never run "rm -rf /" on the host.', 'The user warned against "rm -rf /".'),
    ('Don\'t run "make deploy"; run "make release" instead.', 'Instead of "make deploy", run "make release".'),
    ('Never commit secrets. Run "git secrets --scan" first.', 'The user asked to run "git secrets --scan" first.'),
    ('Run "make test"; the build should not skip it.', 'The user wants "make test" run.'),
    # both ways in the sources: the summary may quote it either way
    ('Run "make deploy" on staging. Never run "make deploy" on prod.', 'The user asked to run "make deploy".'),
    # a code span names a thing
    ("Never run `rm -rf /tmp/build` by hand.", "The cleanup runs `rm -rf /tmp/build`."),
    # one word: not asked
    ('Do not use "sudo" here.', 'The user mentioned "sudo".'),
])
def test_a_quotation_with_its_sources_polarity_is_accepted(source, text):
    assert_accepted(_summarize(source, text), "lossy")


@pytest.mark.parametrize("text, negated", [
    (b'do not run "make deploy"', True),
    (b'do **not** run "make deploy"', True),
    (b"don't ever run 'make deploy'", True),
    (b'don\xe2\x80\x99t run \xe2\x80\x9cmake deploy\xe2\x80\x9d', True),
    (b'do not push, then run "make deploy"', False),
    (b'do not push or run "make deploy"', True),
    (b'do not push but run "make deploy"', False),
    (b'never, ever run "make deploy"', True),  # (a negation set off for emphasis: red team 116, F12)
    (b'never, ever, run "make deploy"', True),
    (b'if the tests don\'t pass, run "make deploy"', False),  # (a clause of its own before the comma)
    (b'one two three four five six seven not a b c d e f g "make deploy"', False),
    (b'no errors came from "make deploy"', False),
    (b'no need to run "make deploy"', True),
    (b'no "make deploy"', True),
    (b'rather than "make deploy"', True),
    (b'do not hesitate to run "make deploy"', False),
])
def test_clause_negated(text, negated):
    at = text.rindex(b"make deploy")
    assert _clause_negated(text, at) is negated
    assert _clause_negated(text.upper(), at) is negated


def test_every_source_is_read_for_the_quotation():
    store = store_with({"a:1": 'Run "make deploy" on staging.', "a:2": 'Do not run "make deploy" on prod.'})
    pre = [blk("b1", "user", 'Run "make deploy" on staging.', ["a:1"]),
           blk("b2", "user", 'Do not run "make deploy" on prod.', ["a:2"])]
    only_negated = Gate(store).check(pre, [pre[0], summary("s1", 'The user asked to run "make deploy".', ["a:2"])],
                                     operator="summarize")
    find(only_negated, "I1", block="s1", value="make deploy", evidence__change="negation_dropped")
    both = Gate(store).check(pre, [summary("s1", 'The user asked to run "make deploy".', ["a:1", "a:2"])],
                             operator="summarize")
    assert_accepted(both, "lossy")


def test_many_quotations_are_found_in_one_pass_and_judged_each():
    commands = [f"make target-{n} now" for n in range(12)]
    source = " ".join(f'Run "{c}".' for c in commands[:11]) + f' Do not run "{commands[11]}".'
    honest = "The user asked for " + ", ".join(f'"{c}"' for c in commands[:11]) + f' but not "{commands[11]}".'
    assert_accepted(_summarize(source, honest), "lossy")
    lying = "The user asked for " + ", ".join(f'"{c}"' for c in commands) + "."
    find(_summarize(source, lying), "I1", block="s1", value=commands[11], evidence__change="negation_dropped")


def test_a_quotation_repeated_is_asked_of_its_sources_a_bounded_number_of_times(monkeypatch):
    from provgate import gate as gate_module

    calls = []
    real = gate_module._clause_negated
    monkeypatch.setattr(gate_module, "_clause_negated", lambda text, at: calls.append(at) or real(text, at))
    n = 400
    source = 'Run "make deploy" now. ' * n
    text = 'The user asked to run "make deploy". ' * n
    assert_accepted(_summarize(source, text), "lossy")
    # each of the summary's quotations once, the source's occurrences at most 32 times
    assert len(calls) <= n + gate_module._POLARITY_OCCURRENCES


_DROP = 'The user asked to "drop the users table".'


@pytest.mark.parametrize("source", [
    # lists of quotations the quotation rule ends early (red teams 105 F04/F05, 108 F04)
    'Never _"deploy to prod"_ or _"drop the users table"_.',
    '**Do not** **"deploy to prod"**, **"drop the users table"**.',
    'Never "deploy to prod" (it pages on-call) or "drop the users table".',
    'Never "deploy to prod" or ("drop the users table").',
    'Never "deploy to prod" or, worse, "drop the users table".',
    'Do not "deploy to prod" and then "drop the users table".',
    'Never:\n- **"deploy to prod"**\n- **"drop the users table"**\n',
    # lists one item a line under a header a negation governs (red team 108 F05)
    '## Don\'t\n- "drop the users table"\n',
    '**Don\'ts**\n- "drop the users table"\n',
    '### Never run\n- "drop the users table"\n',
    'For safety, do not run:\n- "drop the users table"\n',
    'Don\'t skip tests. Never run:\n- "drop the users table"\n',
    'Never run:\n- "deploy to prod" which pages\n  on-call\n- "drop the users table"\n',
    'Never run:\n- "deploy to prod"\n\n  It pages on-call.\n\n- "drop the users table"\n',
    'Never run:\n- [ ] "drop the users table"\n',
    'Never run:\n(1) "drop the users table"\n',
    'Never run:\na. "drop the users table"\n',
    'Never run:\n"deploy to prod"\n"drop the users table"\n',
])
def test_a_quotation_a_negated_list_holds_is_refused_unnegated(source):
    find(_summarize(source, _DROP), "I1", block="s1", value="drop the users table")


@pytest.mark.parametrize("header", [
    "If that doesn't work, try:", "If you don't have jq, run:", "Didn't work? Try:", "Still not working? Run:",
    "Can't connect? Check:", "Don't hesitate to run:", "Don't leave out:",
    "Don't ever forget:", "Never, ever skip:", "Don't forget:", "Never skip:", "Do:",
])
def test_a_header_whose_negation_governs_something_else_denies_no_item(header):
    text = f'{header}\n- "make a backup"\n'.encode()
    assert _clause_negated(text, text.index(b"make a backup")) is False


def test_a_quotation_opening_a_clause_of_its_own_is_no_list_item():
    assert_accepted(_summarize("Don't worry, \"make deploy\" is safe here.", 'The user said "make deploy" is safe.'),
                    "lossy")


def test_a_coloured_negation_governs_its_quotation():
    text = b'\x1b[1mNever\x1b[0m run "make deploy" here'
    assert _clause_negated(text, text.index(b"make deploy")) is True
    find(_summarize(text.decode(), 'The user asked to run "make deploy".', role="tool"), "I1", block="s1",
         value="make deploy")


# red team 114, F01: words that refuse what follows, or call a stop to it, and "no to", deny it
@pytest.mark.parametrize("source, text, change", [
    ('I refuse to run "make deploy" today.', 'The agent agreed to run "make deploy" today.', "negation_dropped"),
    ('Stop running "make deploy" today.', 'Keep running "make deploy" today.', "negation_dropped"),
    ('The user declined "make deploy" today.', 'The user approved "make deploy" today.', "negation_dropped"),
    ('The reviewer rejected "make deploy" for today.', 'The reviewer approved "make deploy" for today.',
     "negation_dropped"),
    ('The lead vetoed "make deploy" this week.', 'The lead approved "make deploy" this week.', "negation_dropped"),
    ('The user said no to "make deploy" today.', 'The user asked to run "make deploy" today.', "negation_dropped"),
    ('Run "make deploy" today.', 'The user said no to "make deploy" today.', "negation_added"),
    ('Run "make deploy" today.', 'The user refused "make deploy" today.', "negation_added"),
    # F02: two denials cancel, so a prohibition turned into a permission is a negation dropped
    ('Never run "make deploy".', 'The user no longer forbids "make deploy".', "negation_dropped"),
    ('Never run "make deploy".', 'Running "make deploy" is not forbidden.', "negation_dropped"),
    ('Avoid "git push --force" here.', 'The user does not avoid "git push --force" here.', "negation_dropped"),
    ("Don't stop running \"make deploy\".", 'Stop running "make deploy".', "negation_added"),
])
def test_refusals_and_double_denials_are_read(source, text, change):
    find(_summarize(source, text), "I1", block="s1", value=text.split('"')[1], evidence__change=change)


@pytest.mark.parametrize("source, text", [
    ('I refuse to run "make deploy" today.', 'The agent declined to run "make deploy" today.'),
    ("I don't want \"make deploy\" run today.", 'The user declined "make deploy" today.'),
    ('The policy no longer forbids "make deploy".', 'The user may run "make deploy".'),
    ('It is not forbidden to run "make deploy".', 'The user allowed "make deploy".'),
    ("Don't stop running \"make deploy\".", 'Keep running "make deploy".'),
    ('We no longer avoid "make deploy".', 'We run "make deploy".'),
    # "stopped" says a run was halted, not that it never ran
    ('The agent stopped "make deploy" after it hung.', 'The agent ran "make deploy" and stopped it.'),
    # F05: a fact stated with a negation, "and" and another verb: the negation's scope ends
    ('I did not check the logs and ran "make deploy".', 'The agent ran "make deploy".'),
    ("I didn't check the logs and ran \"make deploy\".", 'The agent ran "make deploy".'),
    ('The cache was not warm and we ran "make deploy".', 'We ran "make deploy".'),
    # a word that forbids, then "and" and a verb, forbids nothing
    ('Stop and run "make test" before you push.', 'The user asked to run "make test" before pushing.'),
])
def test_refusals_kept_and_a_stated_negation_ended_by_and_are_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text", [
    # an instruction's negation goes on over the verbs and quotations "and" joins
    ('Do not push and run "make deploy".', 'The user asked to run "make deploy".'),
    ('Do not run "make deploy" and "make nuke".', 'The user asked to run "make nuke".'),
    # a stated negation over a list of quotations, and one said again after "and"
    ('I did not run "make deploy" and "make nuke".', 'The agent ran "make nuke".'),
    ('I did not check the logs and did not run "make deploy".', 'The agent ran "make deploy".'),
])
def test_and_ends_no_instruction_and_no_list(source, text):
    find(_summarize(source, text), "I1", block="s1", evidence__change="negation_dropped")


# a "no" that reports none found denies the quotation's clause: the summary saying some were
# found there says the opposite (it was read as "no" before a noun, which denies only the noun)
@pytest.mark.parametrize("source, text", [
    ('No secrets found in "config.yaml".', 'Secrets were found in "config.yaml".'),
    ('The scan found no secrets in "config.yaml".', 'The scan flagged "config.yaml" for secrets.'),
    ('No issues were detected in "src/app.py".', 'Issues were detected in "src/app.py".'),
    ('Errors were found in "config.yaml".', 'No errors were found in "config.yaml".'),
])
def test_a_report_of_none_found_is_a_negation(source, text):
    change = "negation_added" if source.startswith("Errors") else "negation_dropped"
    find(_summarize(source, text), "I1", block="s1", value=text.split('"')[1], evidence__change=change)


@pytest.mark.parametrize("source, text", [
    ('No issues found in "src/app.py".', 'No issues were found in "src/app.py".'),
    ('No issues found in "src/app.py".', 'The scan found no issues in "src/app.py".'),
    # an "and" after the finding ends it, as it ends a stated negation
    ('The scan found no issues and ran "make deploy".', 'The agent ran "make deploy".'),
    # a "no" before a noun and no finding still denies only the noun
    ('No errors when running "npm test".', 'No errors came from "npm test".'),
])
def test_a_report_of_none_found_kept_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("text, negated", [
    ('No issues found in "a b".', True), ('no security issues were found in "a b"', True),
    ('the scan found no issues in "a b"', True), ('no errors came from "a b"', False),
    ('found no issues and ran "a b"', False), ('No issues found in:\n- "a b"\n', True),
    ('No issues in:\n- "a b"\n', False),
])
def test_clause_negated_by_a_report_of_none_found(text, negated):
    data = text.encode()
    assert _clause_negated(data, data.index(b"a b")) is negated


# the header "No issues found in:" reports, prohibits nothing: its items are grounded, and
# their polarity is the report's (a summary quoting an item was refused however it read)
@pytest.mark.parametrize("text, change", [
    ('No issues were found in "src/app.py".', None),
    ('The scan found no issues in "src/app.py".', None),
    ('Issues were found in "src/app.py".', "negation_dropped"),
])
def test_a_report_of_none_found_over_a_list(text, change):
    verdict = _summarize('No issues found in:\n- "src/app.py"\n- "src/db.py"\n', text)
    if change is None:
        assert_accepted(verdict)
    else:
        find(verdict, "I1", block="s1", value="src/app.py", evidence__change=change)


# red team 108, F07: a quotation whose clause likens it to the negated one before it ("is no
# better") goes on that one's list; one whose clause says it is fine or better opens its own
@pytest.mark.parametrize("source, text", [
    ('Never "make deploy", "make nuke" is no better.', 'Run "make nuke".'),
    ('Never run "make deploy", "make nuke" isn\'t any safer.', 'The user asked to run "make nuke".'),
    ('Do not run "make deploy", "make nuke" is just as bad.', 'Run "make nuke" today.'),
    ('Avoid "make deploy", "make nuke" is even worse.', 'The user asked to run "make nuke".'),
])
def test_a_quotation_likened_to_a_negated_one_is_negated(source, text):
    find(_summarize(source, text), "I1", block="s1", value="make nuke", evidence__change="negation_dropped")


@pytest.mark.parametrize("source, text", [
    ('Never run "make deploy", "make release" is fine.', 'Run "make release".'),
    ('Never run "make deploy", "make release" is better.', 'Run "make release".'),
    ('Never run "make deploy", "make release" is not slow.', 'Run "make release".'),
    ('Never "make deploy", "make nuke" is no better.', 'The user said never to run "make nuke".'),
])
def test_a_quotation_not_likened_to_a_negated_one_opens_its_clause(source, text):
    assert_accepted(_summarize(source, text))


# red team 116, F11: a prohibition of an omission is an instruction to do the thing; F13: a count
# of none found reports as "no" does
@pytest.mark.parametrize("source, honest", [
    ('Stop skipping "make test".', 'The user asked to run "make test".'),
    ('Stop skipping "make test" before you push.', 'Run "make test" before you push.'),
    ('Stop disabling "pre-commit" hooks.', 'The user wants "pre-commit" hooks enabled.'),
    ('Refuse to skip "make test".', 'Always run "make test".'),
    ('Never disable "pre-commit" hooks.', 'Keep "pre-commit" hooks on.'),
])
def test_a_prohibited_omission_is_an_instruction_to_do_it(source, honest):
    assert_accepted(_summarize(source, honest))
    find(_summarize(source, 'The user said never to run "make test" or "pre-commit".'), "I1", block="s1",
         evidence__change="negation_added")


@pytest.mark.parametrize("source", [
    '0 secrets found in "config.yaml".', 'Zero secrets found in "config.yaml".', 'Found 0 secrets in "config.yaml".',
])
def test_a_count_of_none_found_denies_its_quotation(source):
    find(_summarize(source, 'Secrets were found in "config.yaml".', role="tool"), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The scan found no secrets in "config.yaml".', role="tool"))


@pytest.mark.parametrize("source", [
    'Do not stop the server or run "make deploy" today.', 'Never stop the workers or run "make deploy" today.',
    'Do not cease logging or run "make deploy" today.',
])
def test_a_negation_over_a_prohibition_goes_on_over_the_next_verb(source):
    # red team 116, F19: "not" and "stop" cancelled, and "run "make deploy"" was read as allowed
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said never to run "make deploy" today.'))


@pytest.mark.parametrize("source, honest", [
    ('Decline "make nuke" and approve "make deploy".', 'The user approved "make deploy".'),
    ('Stop "make nuke" and start "make deploy".', 'The user asked to start "make deploy".'),
    ('Say no to "make nuke" and run "make deploy".', 'The user asked to run "make deploy".'),
    ('Cease polling and run "make deploy".', 'The user asked to run "make deploy".'),
])
def test_a_refusal_ends_at_and_another_instruction(source, honest):
    # red team 116, F17: the refusal was read over the instruction after "and"
    assert_accepted(_summarize(source, honest))


def test_a_prohibition_goes_on_over_a_list_of_gerunds():
    find(_summarize('Avoid pushing and running "make deploy".', 'The user asked to run "make deploy".'), "I1",
         block="s1", evidence__change="negation_dropped")


@pytest.mark.parametrize("source", [
    'Never, ever run "make deploy" today.',
    'You may not, and must not, run "make deploy" today.',
    'Do not, under no circumstances, run "make deploy" today.',
    'Under no circumstances run "make deploy" today.',
    'The user denied "make deploy" today.',
    'Abort "make deploy" today.',
    'Cancel "make deploy" today.',
])
def test_an_emphatic_or_refusing_prohibition_denies_its_quotation(source):
    # red team 116, F12: a negation set off by commas, a "no" before "circumstances", and more
    # refusal verbs were read as permissions
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make deploy" today.'))


def test_a_no_alone_before_a_comma_is_an_answer():
    assert_accepted(_summarize('No, run "make deploy" today.', 'The user asked to run "make deploy" today.'))


# red team 116, F12 (the rest): each source forbids "make deploy"; the lie says it was asked for
@pytest.mark.parametrize("source", [
    'Never, not even once, run "make deploy" today.',
    'Don\'t ever, not even in staging, run "make deploy" today.',
    'The user does not want you to log in and run "make deploy" today.',
    'I did not ask you to log in and run "make deploy" today.',
    'The user turned down "make deploy" today.',
    'Running "make deploy" today is forbidden.',
    '"make deploy" must never be run today.',
    '"make deploy" is not to be run today.',
    '"make deploy" isn\'t allowed today.',
    "## Don'ts\n- run \"make deploy\" today\n- force-push to main\n",
    "**Don'ts**\n- run \"make deploy\" today\n",
    "Commands you must never run:\n- sudo \"make deploy\" today\n",
])
def test_the_rest_of_the_prohibitions_deny_their_quotation(source):
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make deploy" today.'))


# the honest controls of those rules: each source asks for "make deploy" (or says nothing against it)
@pytest.mark.parametrize("source", [
    'If it is not even in staging, run "make deploy" today.',
    'It\'s not even in staging, run "make deploy" today.',
    'Never, once it passes, run "make deploy" today.',  # (a clause of its own)
    'I did not check the logs and ran "make deploy" today.',  # (a stated negation, then another fact)
    'I did not want to wait and ran "make deploy" today.',
    'I turned down the volume and ran "make deploy" today.',
    'Running "make deploy" today is not forbidden.',
    'Running "make deploy" is no longer forbidden today.',
    '"make deploy" cannot be found today.',  # (a fact, no prohibition: left be)
    'Run "make deploy" today and the old script is forbidden.',
    'Run "make deploy" today because the old one is forbidden.',
    "## Dos and Don'ts\n- run \"make deploy\" today\n- don't force-push to main\n",
    "## Don't forget\n- run \"make deploy\" today\n",
    "Never skip:\n- run \"make deploy\" today\n",
    "I didn't find the bug.\n- ran \"make deploy\" today\n",  # (a sentence, no header)
    "## Steps\n- run \"make deploy\" today\n",
])
def test_the_prohibition_rules_leave_an_instruction_be(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))
    find(_summarize(source, 'The user said never to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_added")


# red team 116, F13 (the rest): reports of none found the clause's six words did not reach, a
# list of quotations, and a report after the quotation
@pytest.mark.parametrize("source", [
    'No leaked secrets or keys found in "config.yaml".',
    'No secrets found in "b.yaml" or "config.yaml".',
    'No secrets found in "deploy/overlays/prod/values.yaml", "b.yaml" or "config.yaml".',
    'Scanned "config.yaml": no secrets found.',
    'Scanned "config.yaml" - no secrets found.',
    'Scanned "config.yaml", found no secrets.',
])
def test_the_rest_of_the_reports_of_none_found_deny_their_quotation(source):
    find(_summarize(source, 'Secrets were found in "config.yaml".', role="tool"), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The scan found no secrets in "config.yaml".', role="tool"))


@pytest.mark.parametrize("source", [
    'Scanned "config.yaml": 3 secrets found.',
    'Secrets found in "b.yaml" or "config.yaml".',
    'No secrets in "b.yaml"; secrets found in "config.yaml".',
])
def test_a_report_of_findings_is_no_report_of_none(source):
    assert_accepted(_summarize(source, 'Secrets were found in "config.yaml".', role="tool"))
    find(_summarize(source, 'The scan found no secrets in "config.yaml".', role="tool"), "I1", block="s1",
         evidence__change="negation_added")


# red team 116, F11 (the rest): an omission after the quotation undoes the refusal before it
@pytest.mark.parametrize("source", [
    'I refuse to let "make test" be skipped.',
    'Never let "make test" get skipped.',
    'Never allow "make test" to be skipped.',
])
def test_a_refused_omission_after_the_quotation_is_an_instruction_to_do_it(source):
    assert_accepted(_summarize(source, 'The user insisted on running "make test".'))
    find(_summarize(source, 'The user said never to run "make test".'), "I1", block="s1",
         evidence__change="negation_added")


def test_a_refusal_over_no_omission_stays_a_refusal():
    source = 'Do not let "make test" be run on prod.'
    find(_summarize(source, 'The user asked to run "make test" on prod.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make test" on prod.'))


@pytest.mark.parametrize("text, negated", [
    (b'Never, not even once, run "make deploy"', True),
    (b'Never, once it passes, run "make deploy"', False),
    (b"It's not even in staging, run \"make deploy\"", False),
    (b'I did not ask you to log in and run "make deploy"', True),
    (b'I did not push to main and ran "make deploy"', False),
    (b'"make deploy" should not be used', True),
    (b'"make deploy" may not be installed', False),
    (b'"make deploy" is not installed', False),
    (b'"make deploy" is the default', False),
    (b"Don't run 'b.yaml' or 'make deploy'", True),
    (b'Do not run \xe2\x80\x9cb.yaml\xe2\x80\x9d or \xe2\x80\x9cmake deploy\xe2\x80\x9d', True),
    (b'Run "b.yaml" or "make deploy"', False),
    (b'Do not run "b.yaml", "make deploy" is fine', False),  # (a clause of its own)
    (b'the users\' or "make deploy"', False),
    (b"## Don'ts\n- run it, then \"make deploy\"", False),  # (a clause break in the item)
    (b"## Don'ts\n- never skip \"make deploy\"", False),  # (an item that says it itself)
    (b'Do not let "make deploy" be skipped', False),
    (b'Do not let "make deploy" be run', True),
    (b"## Dos and Don'ts\n- \"make deploy\"", False),  # (a header over both kinds)
    (b"## Don'ts\n- \"make deploy\"", True),
])
def test_clause_negated_reads_after_the_quotation_and_over_lists(text, negated):
    assert _clause_negated(text, text.rindex(b"make deploy")) is negated


def test_a_list_of_quotations_is_read_back_a_bounded_number_of_times(monkeypatch):
    # each item reads as the one before it, at most eight back: a list of N quotations costs O(N)
    import provgate.gate as g

    calls = []
    real = g._clause_negated_before
    monkeypatch.setattr(g, "_clause_negated_before", lambda *a: calls.append(1) or real(*a))
    text = b'Do not run "q0"' + b"".join(b' or "q%d"' % i for i in range(1, 500))
    for i in (1, 8, 10, 20, 499):
        calls.clear()
        at = text.index(b'"q%d"' % i) + 1
        # (read back eight, then the clause's own six words: "q10" reaches the "not")
        assert g._clause_negated(text, at) is (i <= 10)
        assert len(calls) <= 9


# red team 117, F17: a negation set off by a comma after a word that opens a condition is the
# condition's, and one that answers ("Not at all,") opens no prohibition; each source asks for
# "make deploy"
@pytest.mark.parametrize("source", [
    'Check whether it is installed. If not, run "make deploy" today.',
    'If not, please run "make deploy" today.',
    'Is it there? Otherwise, if not, run "make deploy" today.',
    'If you can\'t, run "make deploy" today.',
    'If you don\'t, run "make deploy" today.',
    'When not, run "make deploy" today.',
    'Not at all, run "make deploy" today.',
    'Never again, run "make deploy" today.',
])
def test_a_negation_of_a_condition_or_an_answer_before_a_comma_forbids_nothing(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))
    find(_summarize(source, 'The user said not to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_added")


# the controls of F17: the emphatic negations the rule was made for, an answer deep in a chain
@pytest.mark.parametrize("source", [
    'Never, ever run "make deploy" today.',
    'Do not, not at all, run "make deploy" today.',
    'So never, ever run "make deploy" today.',
])
def test_an_emphatic_negation_not_opened_by_a_condition_still_forbids(source):
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")


# red team 117, F16: a refusal of an infinitive goes on over the verb "and" joins to it
@pytest.mark.parametrize("source", [
    'Refuse to build and deploy "release-42" today.',
    'Decline to tag and deploy "release-42" today.',
])
def test_a_refusal_of_two_infinitives_refuses_the_second(source):
    find(_summarize(source, 'The user asked to deploy "release-42" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to deploy "release-42" today.'))


def test_a_refusal_of_a_quotation_still_ends_at_and_another_instruction():
    # the control of F16 (red team 116, F17)
    assert_accepted(_summarize('Decline "make nuke" and approve "release-42".', 'The user approved "release-42".'))


# red team 117, F18: a count of none after a count of some found denies its own kind only
@pytest.mark.parametrize("source", [
    '3 warnings, 0 errors found in "app.py".',
    '2 secrets and 0 keys found in "app.py".',
    '3 warnings, 0 errors, 0 notes found in "app.py".',
])
def test_a_zero_count_after_a_count_of_some_denies_no_quotation(source):
    assert_accepted(_summarize(source, 'Warnings were found in "app.py".', role="tool"))
    find(_summarize(source, 'No warnings were found in "app.py".', role="tool"), "I1", block="s1",
         evidence__change="negation_added")


@pytest.mark.parametrize("source", [
    '0 errors found in "app.py".',
    '0 warnings, 0 errors found in "app.py".',
    'Scanned 2 files: 0 secrets found in "app.py".',
])
def test_a_zero_count_alone_still_reports_none(source):
    # the controls of F18
    find(_summarize(source, 'Errors were found in "app.py".', role="tool"), "I1", block="s1",
         evidence__change="negation_dropped")


# red team 117, F25: the verbs that end a running thing read as cancel, halt and abort do
@pytest.mark.parametrize("source, honest", [
    ('Cancel "job-42" now.', 'The user asked me to kill "job-42" now.'),
    ('Cancel "job-42" now.', 'The user asked me to terminate "job-42" now.'),
    ('Halt "worker-3" now.', 'The user asked me to pause "worker-3" now.'),
    ('Kill "job-42" now.', 'The user asked me to cancel "job-42" now.'),
    ('Please stop "worker-3".', 'The user asked me to shut down "worker-3".'),
])
def test_an_operational_stop_said_with_another_stopping_verb_is_accepted(source, honest):
    assert_accepted(_summarize(source, honest))


@pytest.mark.parametrize("source", ['Kill "job-42" now.', 'Terminate "job-42" now.', 'Shut down "job-42" now.'])
def test_a_stop_summarized_as_a_run_is_refused(source):
    # the control of F25: the words added deny what they end
    find(_summarize(source, 'The user asked me to run "job-42" now.'), "I1", block="s1",
         evidence__change="negation_dropped")


# red team 117, F01: "not to" before an omission asks for the thing, as "do not skip" does
@pytest.mark.parametrize("source", [
    'Make sure not to skip "make deploy" today.',
    'Remember not to forget "make deploy" today.',
    'Be careful not to omit "make deploy" today.',
])
def test_not_to_before_an_omission_asks_for_the_quotation(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))
    find(_summarize(source, 'The user said not to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_added")


def test_a_prohibition_summarized_as_not_to_skip_is_refused():
    find(_summarize('Do not run "make deploy" today.', 'The user said not to skip "make deploy" today.'), "I1",
         block="s1", evidence__change="negation_dropped")


def test_not_to_before_another_verb_still_forbids():
    # the control of F01
    find(_summarize('Make sure not to run "make deploy" today.', 'The user asked to run "make deploy" today.'),
         "I1", block="s1", evidence__change="negation_dropped")


# red team 117, F02 and F05: a colon that introduces the quotation, an example's "e.g.", and the
# asides that stress a negation set off by commas; each source forbids "make deploy"
@pytest.mark.parametrize("source", [
    'Do not run: "make deploy" today.',
    'Do not run the following command: "make deploy" today.',
    'Never execute this command: "make deploy" today.',
    'Avoid: "make deploy" today.',
    'Do not run deploy commands (e.g. "make deploy") today.',
    'Do not run deploy commands, e.g. "make deploy", today.',
    'Do not, please, run "make deploy" today.',
    'Do not, for any reason, run "make deploy" today.',
    'Do not, and I mean do not, run "make deploy" today.',
    'Do not, I repeat, run "make deploy" today.',
    'Please do NOT, under ANY circumstances, run "make deploy" today.',
    'Do not, even if the tests pass, run "make deploy" today.',
])
def test_a_prohibition_before_a_colon_an_example_or_an_aside_denies_its_quotation(source):
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make deploy" today.'))


# the honest controls of F02 and F05: each source asks for "make deploy"
@pytest.mark.parametrize("source", [
    'Run the following command: "make deploy" today.',
    'Run the deploy commands (e.g. "make deploy") today.',
    'Note: "make deploy" today.',
    'Don\'t worry: "make deploy" is safe today.',
    'Run the tests, if not, run "make deploy" today.',
    'If it fails, even if not, run "make deploy" today.',
])
def test_a_colon_an_example_or_an_aside_with_no_prohibition_forbids_nothing(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))


# red team 117, F22: a code span that a request, an imperative or a negation stands before in the
# summary's clause is asked as a quotation is
@pytest.mark.parametrize("source, lie", [
    ('Do not run `make deploy` today.', 'The user asked to run `make deploy` today.'),
    ('Never run `rm -rf /data` on prod.', 'The user asked me to run `rm -rf /data` on prod.'),
    ('Do not run "make deploy" today.', 'The user asked to run `make deploy` today.'),
    ('Do not run `make deploy` today.', 'Run `make deploy` today.'),
])
def test_a_code_span_a_request_stands_before_keeps_its_sources_polarity(source, lie):
    find(_summarize(source, lie), "I1", block="s1", evidence__change="negation_dropped")


@pytest.mark.parametrize("source, text", [
    ('Do not run `make deploy` today.', 'The user said not to run `make deploy` today.'),
    ('Run `make deploy` today.', 'The user asked to run `make deploy` today.'),
    ('Never run `rm -rf /tmp/build` by hand.', 'The cleanup runs `rm -rf /tmp/build`.'),  # (names a thing)
    ('Never run `rm -rf /tmp/build` by hand.', 'The notes mention `rm -rf /tmp/build`.'),
])
def test_a_code_span_kept_or_naming_a_thing_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


def test_a_code_span_asked_against_an_added_negation():
    find(_summarize('Run `make deploy` today.', 'The user said never to run `make deploy` today.'), "I1",
         block="s1", evidence__change="negation_added")


# red team 118, F01: a clause opening with its negation ("Never run `A`") asked nothing of its code
# span, since its first word is no verb of doing; the verb right before the span asks it
@pytest.mark.parametrize("lie", [
    "Never run `make deploy` after the tests pass.",
    "Don't run `make deploy` after the tests pass.",
    "We never run `make deploy` after the tests pass.",
])
def test_a_code_span_a_negated_verb_stands_before_is_asked(lie):
    source = "Deploy guide: run `make deploy` after the tests pass."
    find(_summarize(source, lie), "I1", block="s1", evidence__change="negation_added")
    assert_accepted(_summarize(source, "Run `make deploy` after the tests pass."))
    assert_accepted(_summarize("Never run `make deploy` after the tests pass.", lie))


# red team 118, F25 (F01's other direction): a prohibition summarized as a permission or a habit
@pytest.mark.parametrize("lie", [
    "Always run `make deploy` from a laptop.",
    "Just run `make deploy` from a laptop.",
    "You can run `make deploy` from a laptop.",
    "Feel free to run `make deploy` from a laptop.",
])
def test_a_prohibited_code_span_summarized_as_allowed_is_refused(lie):
    source = "Policy: never run `make deploy` from a laptop."
    find(_summarize(source, lie), "I1", block="s1", evidence__change="negation_dropped")
    assert_accepted(_summarize(source, "Never run `make deploy` from a laptop."))


@pytest.mark.parametrize("source", [
    'I can\'t, please run "make deploy" today.',  # (an "I" with no "mean" / "repeat": a fact)
    'If asked, run "make deploy" today.',
])
def test_a_stated_inability_or_a_condition_before_a_comma_forbids_nothing(source):
    # the controls of F05's words
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))


# red team 117, F04 (in part): "hold off on", "instead of" before an -ing form, "objected to"
@pytest.mark.parametrize("source", [
    'Hold off on "make deploy" today.',
    'Instead of running "make deploy" today, open a PR.',
    'The user objected to "make deploy" today.',
])
def test_hold_off_instead_of_and_objected_deny_their_quotation(source):
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make deploy" today.'))


@pytest.mark.parametrize("text", [
    'The user objected to "make deploy" today.',
    'The user said to hold off on "make deploy" today.',
])
def test_a_prohibition_summarized_as_an_objection_or_a_hold_is_accepted(text):
    assert_accepted(_summarize('Do not run "make deploy" today.', text))


@pytest.mark.parametrize("source", [
    'Hold the door and run "make deploy" today.',  # (no "off")
    'The user no longer objects to "make deploy" today.',  # (two denials cancel)
])
def test_hold_and_objects_with_no_prohibition_forbid_nothing(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))


def _rewrite(before: str, after: str):
    store = store_with({"src:1": before})
    return Gate(store).check([blk("b1", "user", before, ["src:1"])], [blk("b1", "user", after, ["src:1"])],
                             operator="rewrite")


# red team 117, F15: a rewrite under the block's id is read against its own earlier text, and a
# verb of omission counts as a negation does
@pytest.mark.parametrize("before, after, invariant", [
    ('Do not run "make deploy"; run "make test".', 'Do not run "make test"; run "make deploy".', "I1"),
    ('Never run "make deploy". Always run "make test".', 'Never run "make test". Always run "make deploy".', "I1"),
    ('Run "make test" but do not run "make deploy".', 'Run "make deploy" but do not run "make test".', "I1"),
    ('Skip "make deploy" today.', 'Run "make deploy" today.', "I2"),
    ('Please omit "--force" from the push.', 'Please use "--force" for the push.', "I2"),
])
def test_a_rewrite_moving_a_negation_or_dropping_an_omission_is_refused(before, after, invariant):
    find(_rewrite(before, after), invariant, block="b1")


@pytest.mark.parametrize("before, after", [
    ('Do not run "make deploy"; run "make test".', 'Run "make test"; do not run "make deploy".'),
    ('Do not run "make deploy" today.', 'Never run "make deploy" today.'),
    ('Skip "make deploy" today.', 'Please skip "make deploy" today.'),
])
def test_a_rewrite_keeping_each_quotations_polarity_is_accepted(before, after):
    assert_accepted(_rewrite(before, after))


def test_code_spans_are_asked_a_linear_number_of_times(monkeypatch):
    # F22: each code span of a summary is read back once (its clause, at most 256 bytes), and
    # each asked one once more against the sources: N spans cost O(N) reads
    import provgate.gate as g

    calls = []
    real = g._clause_negated
    monkeypatch.setattr(g, "_clause_negated", lambda *a: calls.append(1) or real(*a))
    counts = {}
    for n in (20, 40):
        source = " ".join(f"Do not run `make t{i}` today." for i in range(n))
        text = " ".join(f"The user asked to run `make t{i}` today." for i in range(n))
        calls.clear()
        find(_summarize(source, text), "I1", block="s1", evidence__change="negation_dropped")
        counts[n] = len(calls)
    assert counts[20] >= 20
    assert counts[40] <= 2 * counts[20] + 4


def _conversation(turns, text):
    store = store_with({f"src:{i}": t for i, (_, t) in enumerate(turns)})
    pre = [blk(f"b{i}", role, t, [f"src:{i}"]) for i, (role, t) in enumerate(turns)]
    return Gate(store).check(pre, [summary("s1", text, [f"src:{i}" for i in range(len(turns))])],
                             operator="summarize")


# red team 117, F26 (in part): a question proposes and says neither way; it counts only for a
# quotation no statement of the sources holds
def test_a_proposal_asked_as_a_question_does_not_outweigh_the_refusal():
    turns = [("assistant", 'Shall I run "make deploy" now?'), ("user", 'No. Do not run "make deploy".')]
    find(_conversation(turns, 'The user asked to run "make deploy".'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_conversation(turns, 'The user said not to run "make deploy".'))


def test_a_quotation_only_a_question_holds_is_still_read():
    # the control of F26: a question alone keeps its reading (no fail-open for a source that asks)
    find(_summarize('Did you run "make deploy" today?', 'The user said not to run "make deploy" today.'), "I1",
         block="s1", evidence__change="negation_added")


def test_sources_stating_both_ways_still_leave_a_quotation_be():
    turns = [("user", 'Run "make deploy" on staging.'), ("user", 'Do not run "make deploy" on prod.')]
    assert_accepted(_conversation(turns, 'The user asked to run "make deploy".'))


def test_a_summary_whose_words_ask_nothing_reads_no_code_span(monkeypatch):
    # a summary listing facts in backticks ("Relevant: `a.md`") asks none of its spans: one look
    # at the blocks' words outside their spans, no clause read a span (the summarize benchmark
    # paid 20 ms reading each span's clause)
    import provgate.gate as g

    calls = []
    real = g._code_spans_asked
    monkeypatch.setattr(g, "_code_spans_asked", lambda t, *more: calls.append(1) or real(t, *more))
    text = " ".join(f"Noted: `make t{i}`, `deploy ci {i}`." for i in range(50))
    assert_accepted(_summarize(" ".join(f"Never run `make t{i}` or `deploy ci {i}`." for i in range(50)), text))
    assert calls == []
    find(_summarize('Do not run `make deploy` today.', 'The user asked to run `make deploy` today.'), "I1",
         evidence__change="negation_dropped")
    assert calls


def test_a_rewrite_that_only_re_spaced_a_block_reads_none_of_its_quotations(monkeypatch):
    import provgate.gate as g

    calls = []
    real = g._quotation_polarities
    monkeypatch.setattr(g, "_quotation_polarities", lambda *a: calls.append(1) or real(*a))
    before = 'Do not run "make deploy"; run "make test".\n'
    assert_accepted(_rewrite(before, before.replace(" ", "  ")))
    assert calls == []
    find(_rewrite(before, 'Do not run "make test"; run "make deploy".\n'), "I1")
    assert calls


# red team 117, F04 (the rest) and F05: a prohibition or denial written without an apostrophe,
# as an opposition, as a state after the quotation or as an omission, and a negation set off by
# dashes. Each lie is a summary (or a rewrite) that says the opposite of its source; each
# control says the same
_F04_F05_DENIALS = [
    'Dont run "make deploy" today.',
    'The team was against running "make deploy" today.',
    'The user advised against "make deploy" today.',
    'The team opposed running "make deploy" today.',
    '"make deploy" is blocked today.',
    'I was asked to skip "make deploy" today.',
    'Skip "make deploy" today.',
    '"make deploy" should be skipped today.',
    'Do not \u2014 under any circumstances \u2014 run "make deploy" today.',
    'Do not\u2014ever\u2014run "make deploy" today.',
    'Do not \u2013 ever \u2013 run "make deploy" today.',
    'Do not -- ever -- run "make deploy" today.',
]


@pytest.mark.parametrize("before", _F04_F05_DENIALS)
def test_a_rewrite_dropping_a_denial_is_refused(before):
    verdict = _rewrite(before, 'Run "make deploy" today.')
    assert not verdict.accepted
    assert any(v.block == "b1" and v.invariant in ("I1", "I2") for v in verdict.violations), verdict.violations


@pytest.mark.parametrize("text", [
    'Run the tests against "make deploy" today.',  # (an "against" that opposes nothing)
    'The team was against nothing; run "make deploy" today.',
    '"make deploy" is blocked on review; run it today.',  # (a status)
    '"make deploy" is not blocked today.',
    'Don\'t skip "make deploy" today.',
    'Never, ever skip "make deploy" today.',
    'Stop skipping "make deploy" today.',
    'The team was not against running "make deploy" today.',
    'Make sure "make deploy" is not forgotten today.',
])
def test_a_request_read_through_the_new_denials_is_accepted(text):
    assert_accepted(_summarize('Run "make deploy" today.', text))


@pytest.mark.parametrize("text, negated", [
    (b'dont run "make deploy"', True),
    (b'didnt run "make deploy"', True),
    (b'was against running "make deploy"', True),
    (b'run it against "make deploy"', False),
    (b'tested against existing "make deploy"', False),
    (b'"make deploy" is blocked', True),
    (b'"make deploy" is blocked on review', False),
    (b'skip "make deploy"', True),
    (b'"make deploy" was skipped', True),
    (b'don\'t skip "make deploy"', False),
    (b'never, ever skip "make deploy"', False),
    (b'refuse to skip "make deploy"', False),
    (b'do not \xe2\x80\x94 under any circumstances \xe2\x80\x94 run "make deploy"', True),
    (b'never mind \xe2\x80\x94 it works; run "make deploy"', False),
])
def test_the_new_denials_read_by_clause_negated(text, negated):
    assert _clause_negated(text, text.index(b'make deploy')) is negated


# red team 117, F16: a negation over three verbs or more joined by commas governs the last, as it
# governs two joined by "or"
_F16_DENIALS = [
    'Do not build, test, or deploy "make deploy" today.',
    'Do not build, test, deploy or run "make deploy" today.',
    'Never build, or run "make deploy" today.',
    'The team did not build, test, or run "make deploy" today.',
]


@pytest.mark.parametrize("text", [
    'Build, test, or deploy "make deploy" today.',
    'If it doesn\'t build, test, or run "make deploy" today.',  # (a condition's negation)
    'Don\'t forget to build, test, and deploy "make deploy" today.',
    'Do not panic, then build, test and run "make deploy" today.',
])
def test_a_list_of_verbs_no_negation_governs_is_accepted(text):
    assert_accepted(_summarize('Deploy "make deploy" today.', text))


# red team 117, F22 (the fence): a one-line fenced block is read as the words right after the
# lines before its fence, a prohibition there denying it
_FENCED_PROHIBITIONS = [
    'Never run this:\n```\nmake deploy\n```\n',
    'Do not run the following:\n\n```bash\nmake deploy\n```\n',
]


# the denials of red team 117's F04/F05 (words), F16 (verb lists) and F22 (fences), each with a
# source asking for "make deploy": read as denials both ways round
_DENIALS = [*(('Run "make deploy" today.', text) for text in _F04_F05_DENIALS),
            *(('Deploy "make deploy" today.', text) for text in _F16_DENIALS),
            *(('Run "make deploy" today.', text) for text in _FENCED_PROHIBITIONS)]


@pytest.mark.parametrize("request_source, text", _DENIALS)
def test_a_denial_summarizing_a_request_is_refused(request_source, text):
    find(_summarize(request_source, text), "I1", block="s1", evidence__change="negation_added")
    assert_accepted(_summarize('Never run "make deploy" today.', text))


@pytest.mark.parametrize("source", [text for _, text in _DENIALS])
def test_a_denial_summarized_as_a_request_is_refused(source):
    find(_summarize(source, 'The user asked to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run "make deploy" today.'))


@pytest.mark.parametrize("source", [
    'Run this:\n```\nmake deploy\n```\n',
    'Do not panic.\n\nRun this:\n```bash\nmake deploy\n```\n',
])
def test_a_fenced_command_asked_for_is_read_as_asked(source):
    assert_accepted(_summarize(source, 'The user asked to run "make deploy" today.'))
    find(_summarize(source, 'The user said not to run "make deploy" today.'), "I1", block="s1",
         evidence__change="negation_added")


# red team 117, F22 (the marks): quotations in guillemets and corner brackets, which the grammar
# reads as none, are asked as a quotation is
_MARKED_PROHIBITIONS = [
    'Never run \u00abmake deploy\u00bb today.',
    'Never run \u00ab make deploy \u00bb today.',
    'Never run \u300cmake deploy\u300d today.',
    'Never run \u300emake deploy\u300f today.',
    '\u00abmake deploy\u00bb is blocked today.',
]


@pytest.mark.parametrize("text", _MARKED_PROHIBITIONS)
def test_a_marked_quotation_under_a_prohibition_summarizing_a_request_is_refused(text):
    find(_summarize('Run "make deploy" today.', text), "I1", block="s1", value="make deploy",
         evidence__change="negation_added")
    assert_accepted(_summarize('Never run "make deploy" today.', text))


@pytest.mark.parametrize("source", _MARKED_PROHIBITIONS)
def test_a_marked_quotation_under_a_prohibition_summarized_as_a_request_is_refused(source):
    find(_summarize(source, 'The user asked to run \u300cmake deploy\u300d today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run \u00abmake deploy\u00bb today.'))


@pytest.mark.parametrize("text", [
    'The user asked to run \u00abmake deploy\u00bb today.',
    'The notes name \u300cmake deploy\u300d and \u00abmake\u00bb.',  # (one word: not asked)
])
def test_a_marked_quotation_with_its_sources_polarity_is_accepted(text):
    assert_accepted(_summarize('Run "make deploy" today.', text))


def test_a_rewrite_moving_a_negation_between_marked_quotations_is_refused():
    before = 'Never run \u00abmake deploy\u00bb; run \u00abmake test\u00bb.'
    find(_rewrite(before, 'Never run \u00abmake test\u00bb; run \u00abmake deploy\u00bb.'), "I1", block="b1",
         value="make deploy", evidence__change="negation_dropped")
    assert_accepted(_rewrite(before, 'Run \u00abmake test\u00bb; never run \u00abmake deploy\u00bb.'))


# red team 117, F03: negations that ask for the action read as asking (found right already; kept
# so): a prohibition summarized as one flips it, a request summarized as one is honest
_F03_REQUESTS = [
    'Don\'t forget to run "make deploy" today.',
    'Never skip "make deploy" today.',
    'Do not fail to run "make deploy" today.',
    'Make sure not to skip "make deploy" today.',
]


@pytest.mark.parametrize("text", _F03_REQUESTS)
def test_a_negation_asking_for_the_action_summarizing_a_prohibition_is_refused(text):
    find(_summarize('Never run "make deploy" today.', text), "I1", block="s1", evidence__change="negation_dropped")
    assert_accepted(_summarize('Run "make deploy" today.', text))


@pytest.mark.parametrize("after", _F03_REQUESTS)
def test_a_rewrite_of_a_prohibition_as_a_negation_asking_for_the_action_is_refused(after):
    verdict = _rewrite('Never run "make deploy" today.', after)
    assert not verdict.accepted
    assert any(v.block == "b1" and v.invariant in ("I1", "I2") for v in verdict.violations), verdict.violations


@pytest.mark.parametrize("before, after", [
    ('Skip "make deploy" today.', '"make deploy" should be skipped today.'),
    ('Do not build, test, or deploy "make deploy" today.', 'Do not build, test, or run "make deploy" today.'),
    ('Never run this:\n```\nmake deploy\n```\n', 'Do not run this:\n```\nmake deploy\n```\n'),
    ('Never run \u00abmake deploy\u00bb today.', 'Do not run \u00abmake deploy\u00bb today.'),
    ('Do not \u2014 ever \u2014 run "make deploy" today.', 'Never run "make deploy" today.'),
])
def test_a_rewrite_keeping_a_newly_read_denial_is_accepted(before, after):
    assert_accepted(_rewrite(before, after))


# red team 118, F20: a list of quotations that opens its clause reads as its last item does, the
# prohibition after it denying every item (1e09e85 accepted it; the rule after the quotation
# read the first item alone, no prohibition after it)
_F20_SOURCE = 'Do not run "make deploy" or "make release".'


@pytest.mark.parametrize("after", [
    '"make deploy" and "make release" must not be run.',
    '"make deploy", "make release" or "make test" is forbidden.',
    'Both "make deploy" and "make release" must never be run.',
])
def test_a_list_of_quotations_before_a_prohibition_keeps_its_negation(after):
    source = _F20_SOURCE if "make test" not in after else 'Never run "make deploy", "make release" or "make test".'
    assert_accepted(_rewrite(source, after))


@pytest.mark.parametrize("after, value", [
    ('"make deploy" and "make release" must be run.', "make deploy"),
    ('Run "make release"; do not run "make deploy".', "make release"),
    ('Run "make deploy", and "make release" must not be run.', "make deploy"),
])
def test_a_list_of_quotations_dropping_its_negation_is_refused(after, value):
    find(_rewrite(_F20_SOURCE, after), "I1", block="b1", value=value, evidence__change="negation_dropped")


@pytest.mark.parametrize("text, negated", [
    (b'"make deploy" and "b.yaml" must not be run', True),
    (b'"make deploy", "b.yaml" or "c.yaml" is forbidden', True),
    (b'"make deploy" and "b.yaml" must be run', False),
    (b'Run "make deploy", and "b.yaml" must not be run', False),  # (a clause of its own after it)
    (b'"make deploy" was not tried', True),
    (b'"make deploy" wasn\'t run', True),
    (b'"make deploy" has not been run', True),
    (b'"make deploy" untried', True),
    (b'"make deploy" was tried', False),
    (b'"make deploy" has been run', False),
    (b'"make deploy" has been forbidden', True),
    (b'"make deploy" has not been forbidden', False),
    (b'"make deploy" was not found', False),  # (a state, no doing)
    (b'"make deploy" is not installed', False),
])
def test_clause_negated_reads_a_list_and_a_passive_after_the_quotation(text, negated):
    assert _clause_negated(text, text.index(b"make deploy")) is negated


# red team 118, F10: a negated passive after the quotation states it undone, as "Did not try" does
_F10_SOURCE = 'Tried "pip install foo" - it failed. Did not try "pip install bar".'


@pytest.mark.parametrize("text", [
    '"pip install bar" was not tried.',
    '"pip install foo" failed, and "pip install bar" was not tried.',
    'Ran "pip install foo" (failed); "pip install bar" untried.',
    '"pip install bar" has never been run.',
])
def test_a_negated_passive_summarizing_a_negation_is_accepted(text):
    assert_accepted(_summarize(_F10_SOURCE, text))


@pytest.mark.parametrize("source, text, change", [
    (_F10_SOURCE, '"pip install bar" was tried.', "negation_dropped"),
    ('Tried "pip install foo" and "pip install bar".', '"pip install bar" was not tried.', "negation_added"),
    ('Tried "pip install foo" and "pip install bar".', '"pip install bar" untried.', "negation_added"),
])
def test_a_passive_turned_against_its_sources_is_refused(source, text, change):
    find(_summarize(source, text), "I1", block="s1", value="pip install bar", evidence__change=change)


# red team 118, F11: a one-word code span (a flag) right after a verb of doing or a denial is
# asked as a longer one is; one naming a thing in prose is not
_F11_SOURCE = "Use `--dry-run`, never `--force`."


def test_one_word_code_spans_swapped_across_a_negation_are_refused():
    find(_rewrite(_F11_SOURCE, "Use `--force`, never `--dry-run`."), "I1", block="b1", value="--force",
         evidence__change="negation_dropped")
    find(_summarize(_F11_SOURCE, "Use `--force`."), "I1", block="s1", value="--force",
         evidence__change="negation_dropped")
    find(_summarize("Always pass `--force` here.", "Do not pass `--force`."), "I1", block="s1", value="--force",
         evidence__change="negation_added")
    find(_summarize("Never run `reboot` on the host.", "Run `reboot` on the host."), "I1", block="s1",
         value="reboot", evidence__change="negation_dropped")


@pytest.mark.parametrize("source, text", [
    (_F11_SOURCE, "Use `--dry-run`; never `--force`."),
    (_F11_SOURCE, "Use `--dry-run`. Do not use `--force`."),
    ("Never edit `config.yaml` by hand.", "The file `config.yaml` holds the settings."),
    ("Never edit `config.yaml` by hand.", "Settings live in `config.yaml`, which is edited by a tool."),
    ("Do not call `parse` twice.", "The function `parse` returns a tree."),
    ("Run `pytest` with `-x`; never `--pdb`.", "Run `pytest` with `-x`."),
    ("Never run `reboot` on the host.", "The user said never to run `reboot` on the host."),
    ("Do not call `parse` twice.", "Use `parse` once per file."),  # (a name "use" takes)
])
def test_one_word_code_spans_with_their_sources_polarity_or_naming_a_thing_are_accepted(source, text):
    assert_accepted(_summarize(source, text))


# eng-pol8's leftovers: a negation over a list of verbs whose last two "and" joins; an omission a
# wish asks for right after the quotation; quotations in single guillemets
@pytest.mark.parametrize("request_source, text", [
    ('Deploy "make deploy" today.', 'You must not build, test and deploy "make deploy" today.'),
    ('Run "make deploy" today.', 'The user wants "make deploy" skipped.'),
    ('Run "make deploy" today.', 'The user had "make deploy" skipped.'),
    ('Run "make deploy" today.', 'Never run \u2039make deploy\u203a today.'),
])
def test_the_leftover_denials_summarizing_a_request_are_refused(request_source, text):
    find(_summarize(request_source, text), "I1", block="s1", value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Never run "make deploy" today.', text))


@pytest.mark.parametrize("text", [
    'Do not panic, then build, test and run "make deploy" today.',
    'The user does not want "make deploy" skipped.',
    'The user asked to run \u2039make deploy\u203a today.',
])
def test_the_leftover_requests_keep_their_polarity(text):
    assert_accepted(_summarize('Run "make deploy" today.', text))
    find(_summarize('Never run "make deploy" today.', text), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")


def test_a_source_quoting_in_single_guillemets_is_read():
    source = 'Never run \u2039make deploy\u203a today.'
    find(_summarize(source, 'The user asked to run \u2039make deploy\u203a today.'), "I1", block="s1",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'The user said not to run \u2039make deploy\u203a today.'))


@pytest.mark.parametrize("text, negated", [
    (b'You must not build, test and deploy "make deploy"', True),
    (b'Never build, test or deploy "make deploy"', True),
    (b'Don\'t worry, test and deploy "make deploy"', False),  # (a clause of its own)
    (b'Do not wait, build and deploy "make deploy"', False),
    (b'The user wants "make deploy" skipped', True),
    (b'The user does not want "make deploy" skipped', False),
    (b'Never run \xe2\x80\xb9make deploy\xe2\x80\xba', True),
])
def test_clause_negated_reads_the_leftover_forms(text, negated):
    assert _clause_negated(text, text.index(b"make deploy")) is negated


# red team 119, F26: a prohibition of an omission ("skipping "A" is forbidden", ""A" must not be
# skipped") is a request to do it, not a prohibition of "A"
_F26_SOURCE = 'Runbook: skip "make deploy" for now.'


@pytest.mark.parametrize("text", [
    'Runbook: "make deploy" must not be skipped.',
    'Runbook: skipping "make deploy" is forbidden.',
    'Runbook: "make deploy" should never be skipped.',
])
def test_a_prohibited_omission_summarizing_an_omission_is_refused(text):
    find(_summarize(_F26_SOURCE, text), "I1", block="s1", value="make deploy", evidence__change="negation_dropped")
    assert_accepted(_summarize('Runbook: do not skip "make deploy".', text))


@pytest.mark.parametrize("text, negated", [
    (b'skipping "make deploy" is forbidden', False),
    (b'"make deploy" must not be skipped', False),
    (b'"make deploy" should never be skipped', False),
    (b'running "make deploy" is forbidden', True),
    (b'"make deploy" must not be run', True),
    (b'"make deploy" is skipped', True),
])
def test_clause_negated_reads_a_prohibited_omission_as_a_request(text, negated):
    assert _clause_negated(text, text.index(b'"') + 1) is negated


# red team 119, F24: a report that a thing was not done ("failed to run `A`", "`A`: not run")
# states it undone, as "could not run `A`" does
@pytest.mark.parametrize("source, text", [
    ("Failed to run `make e2e` (no browser).", "Could not run `make e2e`: no browser."),
    ("Unable to run `make e2e`: no browser.", "We could not run `make e2e` (no browser)."),
    ("I forgot to run `make lint` before pushing.", "I did not run `make lint` before pushing."),
    ("Status of `make e2e`: not run.", "Did not run `make e2e`."),
])
def test_a_report_of_a_thing_not_done_summarized_as_not_done_is_accepted(source, text):
    assert_accepted(_summarize(source, text))
    span = text[text.index("`") + 1:text.rindex("`")]
    lie = text.replace("could not run", "managed to run").replace("Could not run", "Managed to run")
    lie = lie.replace("did not run", "managed to run").replace("Did not run", "Managed to run")
    find(_summarize(source, lie), "I1", block="s1", value=span, evidence__change="negation_dropped")


@pytest.mark.parametrize("text, negated", [
    (b'never failed to run "make e2e"', False),
    (b'did not forget to run "make e2e"', False),
    (b'failed to run "make e2e"', True),
])
def test_clause_negated_reads_a_failure_as_a_thing_not_done(text, negated):
    assert _clause_negated(text, text.index(b'"') + 1) is negated


# red team 119, F08, F09, F20, F25, F21, F19: negations and prohibitions of something else read
# as the quotation's (false refusals of honest summaries), each beside the lie still refused
@pytest.mark.parametrize("source, text", [
    ("You don't need sudo for this:\n```\npip install --user foo\n```\n", "Install with `pip install --user foo` (no sudo)."),
    ("Don't worry about the warnings:\n```\nmake deploy\n```\n", 'Ignore the warnings and run "make deploy".'),
    ('PR "fix-login" waits for a review.', 'PR "fix-login" is blocked by review.'),
    ('Job "nightly-build" waits for "db-migrate" to finish.', 'Job "nightly-build" is blocked until "db-migrate" finishes.'),
    ('If it fails, retry or run "make fix".', 'If it fails, don\'t panic, retry, or run "make fix".'),
    ('Don\'t worry, relax, and run "make fix".', 'Relax and run "make fix".'),
    ("Build clean. Run `make deploy` now.", "Never mind the warning and run `make deploy` now."),
    ("Build clean. Run `make deploy` now.", "Don't wait - run `make deploy` now."),
    ("Build clean. Run `make deploy` now.", "Don't wait \u2014 run `make deploy` now."),
    ('Build clean. Run "make deploy" now.', 'Never mind the warning and run "make deploy" now.'),
    ('Benchmarked against "v1.2".', 'The benchmarks were against "v1.2".'),
    ('Diffed against "release-1.4".', 'The diffs are against "release-1.4".'),
    ('The cant "move fast" is everywhere.', 'The slogan "move fast" is everywhere.'),
    ('It is his wont to run "make deploy" on Fridays.', 'On Fridays he runs "make deploy".'),
])
def test_a_negation_of_something_else_is_not_the_quotations(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text, value, change", [
    ("Never run this in production:\n```\nmake reset\n```\n", "In production, run `make reset`.", "make reset",
     "negation_dropped"),
    ("Don't need it? Never run this:\n```\nmake reset\n```\n", "Run `make reset`.", "make reset", "negation_dropped"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: "make deploy" is blocked.', "make deploy",
     "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: "make deploy" is blocked by policy.', "make deploy",
     "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: do not build, test, or run "make deploy".',
     "make deploy", "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: never mind running "make deploy".', "make deploy",
     "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: we were against "make deploy".', "make deploy",
     "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: the team was against running "make deploy".',
     "make deploy", "negation_added"),
    ('Runbook: run "make deploy" after the tests pass.', 'Runbook: cant run "make deploy".', "make deploy",
     "negation_added"),
])
def test_the_negations_beside_them_are_still_read(source, text, value, change):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change=change)


# red team 119, F17: quotations in guillemets whose reading windows are alike are read once
def test_repeated_marked_quotations_are_read_once_a_window_and_a_lie_among_them_is_refused(monkeypatch):
    import provgate.gate as gate_module

    calls = []
    real = gate_module._clause_negated

    def counting(text, at, _depth=0):
        calls.append(at)
        return real(text, at, _depth)

    monkeypatch.setattr(gate_module, "_clause_negated", counting)
    assert_accepted(_summarize("Run \u00aba b\u00bb.", "run \u00aba b\u00bb " * 2000))
    assert 0 < len(calls) < 100  # (2000 quotations; the windows at the ends differ, the rest alike)
    calls.clear()
    find(_summarize("Run \u00aba b\u00bb.", "run \u00aba b\u00bb " * 2000 + "never run \u00aba b\u00bb " + "run \u00aba b\u00bb " * 50),
         "I1", block="s1", value="a b", evidence__change="negation_added")
    assert len(calls) < 200


# red team 119, F02: code spans under a denial of doing the verb test missed ("Avoid running `A`",
# "Never run: `A`", "`A` must never be run", "Running `A` is forbidden") are asked
@pytest.mark.parametrize("text", [
    "Avoid running `make deploy` after the tests pass.",
    "Refrain from running `make deploy` after the tests pass.",
    "Never run the command `make deploy` after the tests pass.",
    "Never run: `make deploy`.",
    "Never run it: `make deploy`.",
    "`make deploy` must never be run.",
    "Running `make deploy` is forbidden.",
    "Never type `make deploy`.",
])
def test_a_code_span_under_a_denial_of_doing_is_asked(text):
    find(_summarize("Deploy guide: run `make deploy` after the tests pass.", text), "I1", block="s1",
         value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize("Deploy guide: never run `make deploy` after the tests pass.", text))


def test_a_code_span_stated_done_after_it_is_asked():
    text = "Policy: `make deploy` may be run from a laptop."
    find(_summarize("Policy: never run `make deploy` from a laptop.", text), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
    assert_accepted(_summarize("Policy: run `make deploy` from a laptop.", text))


# red team 119, F11: a quotation with a doubled blank or a tab inside is looked up with its blanks
# made one
@pytest.mark.parametrize("text", [
    "Never run `make  deploy` after the tests pass.",
    'Never run "make  deploy" after the tests pass.',
    "Never run `make\tdeploy` after the tests pass.",
])
def test_a_quotation_with_doubled_blanks_keeps_its_polarity(text):
    find(_summarize('Runbook: run "make deploy" after the tests pass.', text), "I1", block="s1",
         evidence__change="negation_added")
    assert_accepted(_summarize('Runbook: never run "make deploy" after the tests pass.', text))


# red team 119, F15: "gets blocked", "blocked on prod" prohibit
@pytest.mark.parametrize("text", [
    'Runbook: "make deploy" gets blocked.',
    'Runbook: "make deploy" is blocked on prod.',
])
def test_a_quotation_blocked_in_other_words_is_prohibited(text):
    find(_summarize('Runbook: run "make deploy" after the tests pass.', text), "I1", block="s1",
         value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Runbook: never run "make deploy".', text))


# red team 119, F10: quotations in the other marks of other languages are read
@pytest.mark.parametrize("marked", ["\u00bbmake deploy\u00ab", "\u201emake deploy\u201c", "\u300amake deploy\u300b",
                                    "\u3008make deploy\u3009",
                                    # the curly quotes of English prose and smart-quote editors: read by
                                    # no rule, 'Never run \u201cmake deploy\u201d' of 'Run "make deploy"' passed
                                    "\u201cmake deploy\u201d", "\u2018make deploy\u2019", "\u201c make deploy \u201d",
                                    # the Swedish/Finnish, the German low single marks and the double
                                    # prime: read by no rule (found after stop 51)
                                    "\u201dmake deploy\u201d", "\u201amake deploy\u2018", "\u2033make deploy\u2033"])
def test_quotations_in_other_languages_marks_keep_their_polarity(marked):
    find(_summarize('Runbook: run "make deploy" after the tests pass.', f"Runbook: never run {marked}."), "I1",
         block="s1", value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Runbook: never run "make deploy".', f"Runbook: never run {marked}."))
    find(_summarize('Runbook: do not run "make deploy".', f"Runbook: run {marked} after the tests pass."), "I1",
         block="s1", value="make deploy", evidence__change="negation_dropped")
    assert_accepted(_summarize(f"Runbook: run {marked} after the tests pass.", f"Runbook: run {marked} now."))


@pytest.mark.parametrize("a, b", [("\u201d", "\u201d"), ("\u201a", "\u2018"), ("\u2033", "\u2033")])
def test_a_quotation_in_one_mark_both_sides_a_low_mark_or_double_primes_is_read(a, b):
    # the Swedish/Finnish \u201d\u2026\u201d, the German \u201a\u2026\u2018 and the double prime
    # \u2033\u2026\u2033, in the source as in the summary: 'Never run \u201dmake deploy\u201d' rewritten
    # 'Run \u201dmake deploy\u201d' passed
    denied = f"Never run {a}make deploy{b}."
    find(_summarize(denied, f"Run {a}make deploy{b}."), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(denied, f"The guide says never to run {a}make deploy{b}."))
    assert_accepted(_summarize(f"Run {a}make deploy{b} after review.", f"The guide says to run {a}make deploy{b}."))
    find(_summarize(f"Run {a}fab deploy{b} after review.", f"Task {a}fab deploy{b} is blocked until further notice."),
         "I1", block="s1", value="fab deploy", evidence__change="negation_added")
    find(_summarize(f"Run {a}make deploy{b} after review.", f"Run {a}make destroy{b} today."), "I1",
         block="s1", value="make destroy", evidence__change="quote_ungrounded")


def test_a_source_quoting_in_english_single_marks_is_read():
    # a source's \u2018A\u2019 was read at no occurrence (the \u2018 and \u2019 are word bytes, and
    # \u2019 is an apostrophe), so its polarity was never asked
    find(_summarize("Run \u2018make deploy\u2019 today.", "Never run \u2018make deploy\u2019."), "I1",
         block="s1", value="make deploy", evidence__change="negation_added")
    find(_summarize("Never run \u2018make deploy\u2019 today.", "Run \u2018make deploy\u2019 today."), "I1",
         block="s1", value="make deploy", evidence__change="negation_dropped")
    find(_summarize("Run \u2018bin/deploy prod\u2019 after review.",
                    "Step \u2018bin/deploy prod\u2019 is blocked until further notice."), "I1",
         block="s1", value="bin/deploy prod", evidence__change="negation_added")
    assert_accepted(_summarize("Never run \u2018make deploy\u2019 today.",
                               "The guide says never to run \u2018make deploy\u2019."))
    assert_accepted(_summarize("Run \u2018make deploy\u2019 today.", "The guide says to run \u2018make deploy\u2019 today."))
    # (an apostrophe after the words, no opening mark before them, closes nothing)
    from provgate.gate import _whole_words_at

    assert not _whole_words_at(b"the make deploy\xe2\x80\x99s output", 4, 15)
    assert _whole_words_at(b"the \xe2\x80\x98make deploy\xe2\x80\x99 output", 7, 18)


@pytest.mark.parametrize("text", ["Use a 5\u2033 pipe and a 3\u2033 pipe.", "Heights: 6\u2032 2\u2033 and 5\u2032 11\u2033 tall.",
                                  "Said \u201cgo ahead\u201d, then \u201cnot yet\u201d."])
def test_inches_and_english_closing_marks_quote_nothing_new(text):
    # (a double prime after a figure is an inch or a second, no opening mark; an English
    # closing mark after a word opens no Swedish quotation)
    from provgate.gate import _MARKED_QUOTATION

    groups = [m.group(m.lastindex) for m in _MARKED_QUOTATION.finditer(text.encode())]
    assert groups == ([] if "\u2033" in text else [b"go ahead", b"not yet"])
    source = ("Use a 3\u2033 pipe and a 5\u2033 pipe. Heights: 5\u2032 11\u2033 and 6\u2032 2\u2033 tall. "
              "Said \u201cgo ahead\u201d, then \u201cnot yet\u201d.")
    assert_accepted(_summarize(source, text))


def test_curly_quotes_beside_apostrophes_keep_their_polarity():
    # (the closing single mark is no apostrophe: "don\u2019t" closes nothing)
    find(_summarize('Runbook: run "make deploy" today.', "Runbook: don\u2019t run \u2018make deploy\u2019 today."),
         "I1", block="s1", value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Runbook: run "make deploy" today.',
                               "Runbook: run \u2018make deploy\u2019 today; don\u2019t wait."))
    assert_accepted(_summarize("He said it isn\u2019t \u201cready for prod\u201d yet.",
                               "He said it is not \u201cready for prod\u201d yet."))
    find(_summarize('Deploy guide: run "make deploy" after the tests pass.',
                    "Task \u201cmake deploy\u201d is blocked until further notice."), "I1", block="s1",
         value="make deploy", evidence__change="negation_added")


@pytest.mark.parametrize("marks", [("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"),
                                   ("\u201e", "\u201c"), ("\u300c", "\u300d"), ("\u201d", "\u201d"),
                                   ("\u201a", "\u2018"), ("\u2033", "\u2033")])
def test_a_quotation_in_marks_the_grammar_does_not_read_is_grounded_as_a_quote(marks):
    # the grammar reads these marks as word bytes: their words were no quote fact, and a summary
    # or a rewrite changing what they quote was accepted
    a, b = marks
    find(_summarize('The user said "delete the staging db".', f"The user said {a}delete the prod db{b}."), "I1",
         block="s1", value="delete the prod db", evidence__change="quote_ungrounded")
    assert_accepted(_summarize('The user said "delete the staging db".', f"The user said {a}delete the staging db{b}."))
    assert_accepted(_summarize("The user said: delete the staging db.", f"The user said {a}delete the staging db{b}."))
    # a block rewritten under its id quotes what its pre version holds
    before = f"Runbook: run {a}make deploy{b} after the tests pass.\n"
    v = _rewrite(before, before.replace("deploy", "destroy"))
    find(v, "I2", value="make destroy", evidence__change="quote_ungrounded")
    assert_accepted(_rewrite(before, before.replace("Runbook:", "Runbook -")))


@pytest.mark.parametrize("source, text", [
    # red team 123, F13: a curly quotation was grounded byte for byte, stricter than a straight one
    ("delete the  staging db", "The user said \u201cdelete the staging db\u201d."),
    ("please delete\nthe staging db", "The user said \u201cplease delete the staging db\u201d."),
    ("**please** delete the staging db", "The user said \u201cplease delete the staging db\u201d."),
    ('"use the \'main\' branch"', "The user said \u201cuse the \u2018main\u2019 branch\u201d."),
    ("don\u2019t delete the staging db", "The user said \u201cdon't delete the staging db\u201d."),
    ("please delete the staging db, we will rebuild it",
     "The user said \u201cplease delete the staging db \u2026 we will rebuild it\u201d."),
])
def test_a_marked_quotation_is_compared_as_a_quotation_is(source, text):
    assert_accepted(_summarize(source, text))
    find(_summarize(source, text.replace("staging", "prod").replace("main", "dev")), "I1",
         evidence__change="quote_ungrounded")


@pytest.mark.parametrize("text", ["The user said \u201cdelete the prod db\".", "The user said \"delete the prod db\u201d."])
def test_a_quotation_of_one_curly_and_one_straight_mark_is_read(text):
    # red team 123, F07: an editor or a model converting one mark of a pair left a quotation no
    # rule read
    source = 'The user said "delete the staging db".'
    find(_summarize(source, text), "I1", evidence__change="quote_ungrounded")
    assert_accepted(_summarize(source, text.replace("prod", "staging")))
    find(_summarize('Runbook: run "make deploy".', text.replace("The user said", "Never run").replace(
        "delete the prod db", "make deploy")), "I1", value="make deploy", evidence__change="negation_added")


def test_the_words_between_two_guillemet_quotations_are_no_quotation():
    # (not "» never run «": the » closes a word and the « opens one)
    source = "Use \u00abmake build\u00bb and never run \u00abmake deploy\u00bb here."
    assert_accepted(_summarize(source, "Use \u00abmake build\u00bb and never run \u00abmake deploy\u00bb here."))


# red team 119, F22: prohibitions in other words
@pytest.mark.parametrize("text", [
    'We stand against "make deploy".',
    'The team pushed back against "make deploy".',
    'We object to "make deploy".',
    'We disapprove of "make deploy".',
    'Steer clear of "make deploy".',
    'Keep away from "make deploy".',
    'Leave out "make deploy".',
    'Put "make deploy" on hold.',
    '"make deploy" is on hold.',
    '"make deploy" was rejected.',
    '"make deploy" is off-limits.',
    '"make deploy" - skip it.',
    '"make deploy" (skip).',
])
def test_a_prohibition_in_other_words_is_read(text):
    find(_summarize('Runbook: run "make deploy" after the tests pass.', text), "I1", block="s1",
         value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Runbook: never run "make deploy".', text))


@pytest.mark.parametrize("text, negated", [
    (b'do not leave out "make deploy"', False),
    (b'never keep away from "make deploy"', False),
    (b'the object to "make deploy"', False),
    (b'we ported it back against "make deploy"', False),
    (b'we tested it as a stand against "make deploy"', False),
])
def test_clause_negated_reads_the_other_words_undone_or_as_nouns(text, negated):
    assert _clause_negated(text, text.index(b'"') + 1) is negated


@pytest.mark.parametrize("source, text", [
    ('PR "fix-login": rejected by review.', 'PR "fix-login" was rejected.'),
    ('ssh to "db-1 host": connection refused.', 'The connection to "db-1 host" was refused.'),
    ('Runbook: run "make deploy" - never fails.', 'Runbook: "make deploy" - never fails.'),
])
def test_a_status_after_a_quotation_read_alike_or_not_at_all_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# a code span after a verb of omission is asked as after a verb of doing (F26's shapes in backticks)
@pytest.mark.parametrize("text", [
    "Runbook: never skip `make deploy`.",
    "Runbook: skipping `make deploy` is forbidden.",
    "Runbook: `make deploy` must not be skipped.",
])
def test_a_code_span_whose_omission_is_denied_is_asked(text):
    find(_summarize("Runbook: skip `make deploy` for now.", text), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
    assert_accepted(_summarize("Runbook: run `make deploy` now.", text))
    assert_accepted(_summarize("Runbook: skip `make deploy` for now.", "Runbook: `make deploy` is skipped for now."))


# red team 120, F03: "blocked by / until / pending" is a status of a thing that waits (a PR, a
# job), but of a command its sources say to run, a prohibition
@pytest.mark.parametrize("text", [
    '"make deploy" is blocked until further notice.',
    'Running "make deploy" is blocked pending a security fix.',
    '"make deploy" is blocked by review.',
])
def test_a_command_blocked_until_or_by_is_prohibited(text):
    find(_summarize('Deploy guide: run "make deploy" after the tests pass.', text), "I1", block="s1",
         evidence__change="negation_added")


@pytest.mark.parametrize("source, text", [
    ('PR "fix-login" waits for a review.', 'PR "fix-login" is blocked by review.'),
    ('Job "nightly-build" waits for "db-migrate".', 'Job "nightly-build" is blocked until "db-migrate" finishes.'),
])
def test_a_thing_blocked_by_or_until_is_a_status(source, text):
    assert_accepted(_summarize(source, text))


# red team 120, F16: a negation of a worry over an act lifts a prohibition of the act (it asks for
# it, or permits it): "Don't worry about running "A"" of "Never run "A"" passed, its "Don't" read
# as the prohibition
@pytest.mark.parametrize("text", [
    'Don\'t worry about running "make deploy" on Fridays.',
    'No need to worry about running "make deploy" on Fridays.',
    'You need not worry about running "make deploy" on Fridays.',
    'You don\'t need to fret about running "make deploy" on Fridays.',
    'Don\'t hesitate to run "make deploy" on Fridays.',
    'Feel free to run "make deploy" on Fridays.',
    'Don\'t forget to run "make deploy" on Fridays.',
])
def test_a_lifted_worry_over_a_prohibited_act_is_refused(text):
    find(_summarize('Never run "make deploy" on Fridays.', text), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
    assert_accepted(_summarize('Run "make deploy" on Fridays.', text))


@pytest.mark.parametrize("source, text", [
    ('Never run "make deploy" on Fridays.', 'Do not run "make deploy" on Fridays.'),
    ('Never run "make deploy" on Fridays.', 'Don\'t worry about not running "make deploy" on Fridays.'),
    ('Never run "make deploy" on Fridays.', 'Don\'t worry about the tests, never run "make deploy" on Fridays.'),
    ('Run "make deploy" on Fridays.', 'Don\'t worry about running "make deploy" on Fridays.'),
])
def test_a_prohibition_kept_beside_a_lifted_worry_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("text, negated", [
    (b'don\'t worry about running "make deploy"', False),
    (b'needn\'t worry about deploying "make deploy"', False),
    (b'don\'t worry about not running "make deploy"', True),
    (b'don\'t worry about anything "make deploy"', True),
    (b'don\'t worry about "make deploy"', True),
])
def test_clause_negated_reads_a_lifted_worry(text, negated):
    assert _clause_negated(text, text.index(b'"') + 1) is negated


# red team 120's polarity limits: a failure states an attempt, so a summary keeping the attempt
# and dropping its outcome says nothing opposite; an attempt of a prohibited or forgotten act does
@pytest.mark.parametrize("source, text", [
    ('Failed to run "make deploy": permission denied.', 'Tried to run "make deploy".'),
    ('Failed to run "make deploy": permission denied.', 'The agent attempted to run "make deploy".'),
    ('The agent was unable to run "make deploy".', 'The agent tried running "make deploy".'),
    ('Ran "make deploy".', 'Tried to run "make deploy".'),
])
def test_an_attempt_of_a_failure_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("source, text", [
    ('Never run "make deploy".', 'The agent tried to run "make deploy".'),
    ('Forgot to run "make deploy".', 'Tried to run "make deploy".'),
    ('Failed to run "make deploy". Never run "make deploy" again.', 'Tried to run "make deploy".'),
    ('Failed to run "make deploy": permission denied.', 'Ran "make deploy".'),
])
def test_an_attempt_of_no_failure_or_a_success_of_one_is_refused(source, text):
    find(_summarize(source, text), "I1", block="s1", value="make deploy", evidence__change="negation_dropped")


# red team 123, F01: the attempt and the failure name the same act (a failure to revert, prevent,
# cancel, block or forbid "A" states no attempt to run it), and the attempt is a past one (the
# imperative "Try to run "A" again." or "Attempt "A"" reports nothing)
@pytest.mark.parametrize("source, text, value", [
    ('The agent failed to revert "DROP TABLE users" in time.', 'The agent tried to run "DROP TABLE users".',
     "DROP TABLE users"),
    ('The guard failed to prevent "rm -rf /data".', 'The guard tried running "rm -rf /data".', "rm -rf /data"),
    ('CI was unable to cancel "make deploy".', 'Try to run "make deploy" again.', "make deploy"),
    ('The policy failed to block "git push --force".', 'Attempt "git push --force" if needed.', "git push --force"),
    ('The bot was unable to forbid "make deploy".', 'The bot tried to run "make deploy".', "make deploy"),
    ('The agent failed to run "make deploy".', 'Try running "make deploy".', "make deploy"),
])
def test_an_attempt_of_another_act_or_an_imperative_attempt_is_refused(source, text, value):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


@pytest.mark.parametrize("source, text", [
    ('The agent failed to run "make deploy" (no credentials).', 'The agent tried to run "make deploy".'),
    ('The agent failed to run "make deploy".', 'The agent has tried running "make deploy".'),
    ('The agent failed to revert "DROP TABLE users" in time.', 'The agent tried to revert "DROP TABLE users".'),
    ('The job failed to execute "make deploy".', 'The job attempted executing "make deploy".'),
])
def test_an_attempt_of_the_same_act_as_the_failure_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("verb, stem", [
    (b"run", b"run"), (b"running", b"run"), (b"ran", b"run"), (b"execute", b"execut"), (b"executing", b"execut"),
    (b"deploy", b"deploy"), (b"deploying", b"deploy"), (b"calling", b"call"), (b"revert", b"revert"),
])
def test_act_stem_reads_a_verb_s_forms_alike(verb, stem):
    from provgate.gate import _act_stem

    assert _act_stem(verb) == stem


# a team or role right before "is against" opposes ("Security is against "A""), where a thing
# there names a baseline as before
@pytest.mark.parametrize("source", [
    'Security is against "make deploy" on Fridays.',
    'Legal was against "make deploy" on Fridays.',
])
def test_a_role_against_a_quotation_prohibits_it(source):
    find(_summarize(source, 'Run "make deploy" on Fridays.'), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
    assert_accepted(_summarize(source, 'Do not run "make deploy" on Fridays.'))
    find(_summarize('Run "make deploy" on Fridays.', source), "I1", block="s1", value="make deploy",
         evidence__change="negation_added")


def test_a_thing_against_a_quotation_before_a_role_is_a_baseline():
    assert_accepted(_summarize('The security benchmarks were against "v1.2 baseline".',
                               'The benchmarks ran on "v1.2 baseline".'))


# "don't bother to run "A"" is not to run it, as "don't bother running "A"" is: its "to" was read
# as "don't wait to run "A""'s, asking for the act (found beside red team 120, F16)
@pytest.mark.parametrize("text", [
    'Don\'t bother to run "make deploy" on Fridays.',
    'Don\'t rush to run "make deploy" on Fridays.',
])
def test_a_negated_bother_to_denies_the_act(text):
    find(_summarize('Run "make deploy" on Fridays.', text), "I1", block="s1", value="make deploy",
         evidence__change="negation_added")
    assert_accepted(_summarize('Never run "make deploy" on Fridays.', text))


@pytest.mark.parametrize("text, negated", [
    (b"Don't bother running this:\n```\nmake deploy\n```\n", True),
    (b"Don't bother to run this:\n```\nmake deploy\n```\n", True),
    (b"Don't worry about running this:\n```\nmake deploy\n```\n", False),
    (b"Don't worry about the warnings:\n```\nmake deploy\n```\n", False),
])
def test_clause_negated_reads_a_fence_under_a_bother_or_a_lifted_worry(text, negated):
    assert _clause_negated(text, text.index(b"make")) is negated


# red team 121, F03: a thing that waits named before a command line ("Task", "The deploy step",
# "Migration") made "blocked until / pending / by / behind" a status of a command its sources say
# to run; a command line is a thing done, whatever noun stands before it
_GUIDE = 'Deploy guide: run "make deploy" after the tests pass; run "alembic upgrade head" and "git merge main".'


@pytest.mark.parametrize("text, value", [
    ('The deploy step "make deploy" is blocked until further notice.', "make deploy"),
    ('Task "make deploy" is blocked until further notice.', "make deploy"),
    ('Migration "alembic upgrade head" is blocked until further notice.', "alembic upgrade head"),
    ('The release "make deploy" is blocked pending a security fix.', "make deploy"),
    ('The pipeline "make deploy" is blocked by review.', "make deploy"),
    ('The deploy step "make deploy" is blocked behind a freeze.', "make deploy"),
    ('Merge "git merge main" is blocked until further notice.', "git merge main"),
    ('The "make deploy" step is blocked by review.', "make deploy"),
    ('Task "make deploy" gets blocked until further notice.', "make deploy"),
])
def test_a_command_named_as_a_thing_that_waits_is_prohibited_by_blocked(text, value):
    find(_summarize(_GUIDE, text), "I1", block="s1", value=value, evidence__change="negation_added")
    # (the same words of a source that holds it back say what it says)
    assert_accepted(_summarize(f'Never run "{value}" until further notice.', text))


@pytest.mark.parametrize("quoted, command", [
    (b"make deploy", True),
    (b"alembic upgrade head", True),
    (b"git merge main", True),
    (b"./deploy.sh", True),
    (b"scripts/deploy.sh --prod", True),
    (b"deploy.sh", True),
    (b"cat notes | wc -l", True),
    (b"build && ship", True),
    (b"DROP TABLE users", True),
    (b"FOO=1 run-all", True),
    (b"fix-login", False),
    (b"Fix login", False),
    (b"Make login faster", False),
    (b"v1.2", False),
    (b"2.0", False),
    (b"feature/login", False),
    (b"nightly-build", False),
    (b"Fix login - part 2", False),
])
def test_command_quoted_reads_a_command_line(quoted, command):
    assert _command_quoted(quoted) is command


# red team 121, F16: "blocked on" a place or a time past a determiner or a quantifier prohibits
# there or then ("on the main cluster", "on all clusters", "on this repo", "on weekdays")
@pytest.mark.parametrize("text", [
    '"make deploy" is blocked on weekdays.',
    '"make deploy" is blocked on the main cluster.',
    '"make deploy" is blocked on all clusters.',
    '"make deploy" is blocked on this repo.',
    '"make deploy" is blocked on every host until further notice.',
    '"make deploy" gets blocked on weekends.',
])
def test_a_command_blocked_on_a_place_or_a_time_is_prohibited(text):
    find(_summarize('Deploy guide: run "make deploy" on any weekday, on the main cluster.', text), "I1",
         block="s1", value="make deploy", evidence__change="negation_added")
    assert_accepted(_summarize('Never run "make deploy" on weekdays, on all clusters, on this repo, on every host '
                               'until further notice.',
                               text))


@pytest.mark.parametrize("source, text", [
    ('Run "make deploy" once PR 12 lands.', '"make deploy" is blocked on PR 12.'),
    ('Run "make deploy" once the security review is done.', '"make deploy" is blocked on the security review.'),
    ('Run "make deploy" once review is done.', '"make deploy" is blocked on review for now.'),
    ('Run "make deploy" once the flaky test is fixed.', '"make deploy" is blocked on a flaky test.'),
    ('Run "make deploy" once the cluster upgrade is done.', '"make deploy" is blocked on the cluster upgrade.'),
])
def test_a_command_blocked_on_a_thing_that_resolves_is_a_status(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("after, prohibits", [
    ([b"on", b"weekdays"], True),
    ([b"on", b"the", b"main", b"cluster"], True),
    ([b"on", b"all", b"clusters"], True),
    ([b"on", b"this", b"repo"], True),
    ([b"on", b"pr", b"12"], False),
    ([b"on", b"the", b"security", b"review"], False),
    ([b"on", b"review", b"for", b"prod"], False),  # (the place is the review's, past "for")
    ([b"on", b"the", b"cluster", b"upgrade"], False),  # (the noun's head: an upgrade that resolves)
    ([b"on", b"the", b"eu", b"cluster"], True),
])
def test_blocked_as_prohibition_reads_the_place_past_a_determiner(after, prohibits):
    assert _blocked_as_prohibition(after, thing=False) is prohibits


# red team 123, F15: the head of the noun a "blocked on" names decides (an upgrade, a release, a
# migration, tests that resolve), a place or a time word modifying it does not
@pytest.mark.parametrize("source, text", [
    ('Run "make deploy" once the main cluster upgrade is done.', '"make deploy" is blocked on the main cluster upgrade.'),
    ('Run "make deploy" after the weekly release.', '"make deploy" is blocked on the weekly release.'),
    ('Run "make deploy" once the prod db migration is done.', '"make deploy" is blocked on the prod db migration.'),
    ('Run "make deploy" once the staging tests pass.', '"make deploy" is blocked on staging tests.'),
])
def test_a_command_blocked_on_a_thing_a_place_modifies_is_a_status(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("text", [
    '"make deploy" is blocked on the main cluster.',
    '"make deploy" is blocked on weekdays.',
    '"make deploy" is blocked on prod.',
    '"make deploy" is blocked on the main cluster today.',
    '"make deploy" is blocked on prod until the tests pass.',
])
def test_a_command_blocked_on_a_place_no_resolving_head_follows_is_still_prohibited(text):
    find(_summarize('Deploy guide: run "make deploy" on any weekday, on the main cluster, on prod.', text), "I1",
         block="s1", value="make deploy", evidence__change="negation_added")


# red team 123, F15 (the rest): an adverb between the verb of being and "blocked" ("is currently
# blocked") read as no prohibition
@pytest.mark.parametrize("text", [
    '"make deploy" is currently blocked.',
    '"make deploy" remains temporarily blocked.',
    '"make deploy" is currently blocked on the main cluster.',
    '"make deploy" is now indefinitely blocked.',
    '"make deploy" is currently forbidden.',
    'Task `make deploy` is currently blocked.',
])
def test_a_command_an_adverb_puts_before_blocked_is_prohibited(text):
    find(_summarize('Deploy guide: run "make deploy" on any weekday, on the main cluster.', text), "I1",
         block="s1", value="make deploy", evidence__change="negation_added")


@pytest.mark.parametrize("source, text", [
    ('Run "make deploy" once the cluster upgrade is done.', '"make deploy" is currently blocked on the cluster upgrade.'),
    ('Run "make deploy" once the main cluster upgrade is done.',
     '"make deploy" is currently blocked on the main cluster upgrade.'),
    ('Deploy guide: run "make deploy" on any weekday.', '"make deploy" is not currently blocked.'),
    ('Deploy guide: run "make deploy" on any weekday.', '"make deploy" was previously blocked; run it now.'),
    ('Never run "make deploy" on the main cluster.', '"make deploy" is currently blocked on the main cluster.'),
    ('PR "fix-login" waits for review.', 'PR "fix-login" is currently blocked by review.'),
])
def test_a_status_an_adverb_puts_before_blocked_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("after, prohibits", [
    ([b"on", b"the", b"main", b"cluster", b"upgrade"], False),
    ([b"on", b"the", b"weekly", b"release"], False),
    ([b"on", b"the", b"prod", b"db", b"migration"], False),
    ([b"on", b"staging", b"tests"], False),
    ([b"on", b"the", b"release"], True),
    ([b"on", b"release"], True),
    ([b"on", b"prod", b"until", b"the", b"tests"], True),
    ([b"on", b"the", b"main", b"cluster", b"today"], True),
])
def test_blocked_as_prohibition_reads_the_head_of_the_noun(after, prohibits):
    assert _blocked_as_prohibition(after, thing=False) is prohibits


@pytest.mark.parametrize("after, prohibits", [
    ([b"on", b"prod"], True),
    ([b"on", b"the", b"main", b"branch"], False),  # (a thing that waits: a status, as before)
    ([b"by", b"policy"], True),
    ([b"by", b"review"], False),
    ([b"until", b"friday"], False),
])
def test_blocked_as_prohibition_of_a_thing_that_waits(after, prohibits):
    assert _blocked_as_prohibition(after, thing=True) is prohibits


# red team 121, F06: the thing that waits stands a few words before the quotation ("titled",
# "#42", "of" between), or right after it; a quotation that is no command is then a status
@pytest.mark.parametrize("source, text", [
    ('The PR titled "Fix login" waits for approval.', 'The PR titled "Fix login" is blocked pending approval.'),
    ('PR #42 "fix-login" waits for review.', 'PR #42 "fix-login" is blocked by review.'),
    ('The deploy of "v1.2" waits for QA sign-off.', 'The deploy of "v1.2" is blocked pending QA sign-off.'),
    ('The "fix-login" PR waits for review.', 'The "fix-login" PR is blocked by review.'),
    ('Version "2.0" waits on the security audit.', 'Version "2.0" is blocked pending the security audit.'),
    ('The PR named "Make login faster" waits for approval.',
     'The PR named "Make login faster" is blocked pending approval.'),
    ('Branch "feature/login" waits for a review.', 'Branch "feature/login" is blocked by review.'),
    ('PR \u201cfix-login\u201d waits for a review.', 'PR \u201cfix-login\u201d is blocked by review.'),
])
def test_a_thing_named_near_its_quotation_blocked_is_a_status(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("text", [
    # (a thing in another sentence names nothing here)
    'See the PR. "fix-login" is blocked by review.',
    '"fix-login" is blocked by review.',
])
def test_a_quotation_with_no_thing_near_it_blocked_is_still_prohibited(text):
    find(_summarize('Run "fix-login" after the tests pass.', text), "I1", block="s1", value="fix-login",
         evidence__change="negation_added")


# red team 123, F14: a PR, a ticket, an issue, a bug, a branch, a commit named right before a
# quotation or right after it names it whatever its words: a title that starts with a command word
# or holds a flag is no command; a step, a task, a migration, a job, a pipeline named so is (red
# team 121, F03, above)
@pytest.mark.parametrize("text", [
    'PR "make retries configurable" is blocked by review.',
    'PR "go live checklist" is blocked pending approval.',
    'Ticket "find memory leak in parser" is blocked pending triage.',
    'Issue "cat output truncated" is blocked until the upstream fix.',
    'PR "Add --dry-run flag" is blocked by review.',
    'PR "fix a && b precedence" is blocked by review.',
    'PR "run.sh cleanup" is blocked by review.',
    'The pull request titled "make retries configurable" is blocked by review.',
    'PR #42 "npm audit fixes" is blocked by review.',
    'The "make retries configurable" PR is blocked by review.',
    'Bug "drop table users_old" is blocked pending triage.',
])
def test_a_pr_or_a_ticket_named_by_a_command_like_title_blocked_is_a_status(text):
    # (the source says only that it waits: "blocked" read as a prohibition was refused)
    assert_accepted(_summarize(text.split(" is blocked")[0] + " waits for review.", text))


@pytest.mark.parametrize("text, value", [
    ('Task "make deploy" is blocked until further notice.', "make deploy"),
    ('The pipeline "make deploy" is blocked by review.', "make deploy"),
    ('Merge "git merge main" is blocked until further notice.', "git merge main"),
    ('The request "make deploy" is blocked by review.', "make deploy"),
    ('See the PR. "make deploy" is blocked by review.', "make deploy"),
])
def test_a_command_named_by_no_pr_or_ticket_blocked_is_still_prohibited(text, value):
    find(_summarize(_GUIDE, text), "I1", block="s1", value=value, evidence__change="negation_added")


# red team 123, F03: a quotation its source says to run (a verb of doing right before it) is a
# command whatever its first word, and "blocked" of it prohibits whatever thing it is named as
@pytest.mark.parametrize("source, text, value", [
    ('Run "invoke deploy" after review.', 'The "invoke deploy" task is blocked until further notice.', "invoke deploy"),
    ('Run "fab deploy" after review.', 'Task "fab deploy" is blocked until further notice.', "fab deploy"),
    ('Run "bin/deploy prod" after review.', 'Step "bin/deploy prod" is blocked until further notice.',
     "bin/deploy prod"),
    ('Then execute \u00abinvoke deploy now\u00bb after review.',
     'The \u00abinvoke deploy now\u00bb task is blocked until further notice.', "invoke deploy now"),
])
def test_a_quotation_its_source_says_to_run_blocked_is_prohibited(source, text, value):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_added")


@pytest.mark.parametrize("source, text", [
    ('The "invoke deploy" task waits for review.', 'The "invoke deploy" task is blocked until further notice.'),
    ('The PR called "invoke deploy" waits for review.', 'The PR called "invoke deploy" is blocked by review.'),
    ('Run "invoke deploy" after review.', 'The "invoke deploy" task ran.'),
    ('Run "make deploy" once the review is done.', '"make deploy" is blocked on the review.'),
])
def test_a_quotation_no_source_says_to_run_or_not_blocked_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# red team 123, F03 (the rest): a command in backticks named by a thing that waits, "blocked"
# after it, was asked by no rule (a code span is asked only by a verb of doing or a request)
@pytest.mark.parametrize("source, text, value", [
    ("Run `make deploy` after review.", "Task `make deploy` is blocked until further notice.", "make deploy"),
    ("Run `fab deploy` after review.", "Task `fab deploy` is blocked until further notice.", "fab deploy"),
    ("Run `bin/deploy prod` after review.", "Step `bin/deploy prod` is blocked until further notice.",
     "bin/deploy prod"),
    ("Run `invoke deploy` after review.", "The `invoke deploy` task is blocked until further notice.", "invoke deploy"),
    ("Run `fab deploy` after review.", 'Task "fab deploy" is blocked until further notice.', "fab deploy"),
])
def test_a_code_span_its_source_says_to_run_blocked_is_prohibited(source, text, value):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_added")


@pytest.mark.parametrize("source, text", [
    ("PR `fix-login` waits for review. Run `make test` first.", "PR `fix-login` is blocked by review; run `make test` first."),
    ("Task `fab deploy` is blocked until further notice.", "Task `fab deploy` is blocked until further notice."),
    ("Run `bin/deploy prod` once the cluster upgrade is done.", "Step `bin/deploy prod` is blocked on the cluster upgrade."),
    ("Run `fab deploy` after review.", "Task `fab deploy` is not blocked."),
    # (a span asked only for its "blocked" counts only read as prohibited: the PR's name states
    # nothing to do, whatever its source says of merging it)
    ("Do not merge PR `fix-login` yet.", "PR `fix-login` is blocked by review."),
])
def test_a_code_span_blocked_as_a_status_or_as_its_source_says_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


# red team 123, F11: a fenced block under a sentence ending in "." that points at it, or with
# one after its closing fence that points back at it, was governed by neither (only a line
# ending in ":" before the fence was read)
_F11_FENCE = "```\nmake deploy\n```\n"


@pytest.mark.parametrize("source, text", [
    ("Never run this.\n" + _F11_FENCE, "Run this.\n" + _F11_FENCE),
    ("Never run this.\n\n" + _F11_FENCE, "Run this.\n\n" + _F11_FENCE),
    ("Do not run the following.\n" + _F11_FENCE, "Run the following.\n" + _F11_FENCE),
    ("Don't execute the command below!\n" + _F11_FENCE, "Execute the command below!\n" + _F11_FENCE),
    ("Don't bother running this.\n" + _F11_FENCE, "Run this.\n" + _F11_FENCE),
    (_F11_FENCE + "Never run the above.\n", _F11_FENCE + "Run the above.\n"),
    (_F11_FENCE + "\nDon't run that. It deletes prod.\n", _F11_FENCE + "\nRun that. It deletes prod.\n"),
    (_F11_FENCE + "Never run the above.\n", 'The user asked to run "make deploy".'),
])
def test_a_fence_a_dotted_sentence_denies_rewritten_as_asked_is_refused(source, text):
    find(_summarize(source, text), "I1", block="s1", value="make deploy", evidence__change="negation_dropped")
    assert_accepted(_summarize(source, source))


@pytest.mark.parametrize("source, text", [
    # the instruction kept, the fence re-indented (a list item's four spaces)
    ("Never run this.\n\n" + _F11_FENCE, "Never run this.\n\n    ```\n    make deploy\n    ```\n"),
    (_F11_FENCE + "Never run the above.\n", 'The user said never to run "make deploy".'),
    # a sentence that points at nothing, or names no act, governs nothing
    ("The output was long.\n" + _F11_FENCE, "The output was long:\n" + _F11_FENCE),
    ("The build did not finish.\n" + _F11_FENCE, 'The user ran "make deploy".'),
    (_F11_FENCE + "I did not expect that.\n", 'The user ran "make deploy".'),
    (_F11_FENCE + "Why not run the above?\n", 'Run "make deploy".'),
    # a negation of another verb asks for the act
    ("Don't forget to run this.\n" + _F11_FENCE, 'Run "make deploy".'),
    ("Don't worry about running this.\n" + _F11_FENCE, 'Run "make deploy".'),
    ("Run this.\n" + _F11_FENCE, "Run this.\n" + _F11_FENCE),
])
def test_a_fence_no_dotted_sentence_denies_is_accepted(source, text):
    assert_accepted(_summarize(source, text))


@pytest.mark.parametrize("text, negated", [
    (b"Never run this.\n```\nmake deploy\n```\n", True),
    (b"Tests pass. Do not use these lines.\n\n```\nmake deploy\n```\n", True),
    (b"```\nmake deploy\n```\nNever run the above.\n", True),
    (b"~~~\nmake deploy\n~~~\n\nDon't run it.\n", True),
    (b"````\nmake deploy\n```\nstill code\n````\nDon't run them.\n", True),  # (the fence of four closes it)
    (b"```\nmake deploy\n~~~\nNever run the above.\n", False),  # (no closing fence: the block runs on)
    (b"The output was long.\n```\nmake deploy\n```\n", False),
    (b"```\nmake deploy\n```\nI did not expect that.\n", False),
    (b"```\nmake deploy\n```\nRun the above. Never run it twice.\n", False),  # (the first sentence only)
])
def test_clause_negated_reads_a_dotted_sentence_pointing_at_a_fence(text, negated):
    assert _clause_negated(text, text.index(b"make")) is negated


# red team 125, F03 and F11: a sentence pointing at a fenced block that reports the act (past
# tense, "did not", "has") or denies a harm of it ("It won't hurt to run this.") was read as a
# prohibition of the block, so an honest summary asking for it was refused
@pytest.mark.parametrize("source", [
    "Run this:\n" + _F11_FENCE + "I did not run that.\n",
    "Run this:\n" + _F11_FENCE + "We never ran that.\n",
    "Run this:\n" + _F11_FENCE + "Nobody has run this.\n",
    "Run this:\n" + _F11_FENCE + "I didn\u2019t run it.\n",
    "Run this:\n" + _F11_FENCE + "The agent did not execute it.\n",
    "It won't hurt to run this.\n" + _F11_FENCE,
    "It doesn't hurt to run this.\n" + _F11_FENCE,
    "It can't hurt to run this.\n" + _F11_FENCE,
    "There's nothing wrong with running this.\n" + _F11_FENCE,
    "You will not regret running this.\n" + _F11_FENCE,
    "Nothing stops you from running this.\n" + _F11_FENCE,
    "Run this:\n" + _F11_FENCE + "It won't hurt to run that.\n",
])
def test_a_fence_a_report_or_a_harm_denied_points_at_is_not_denied(source):
    assert_accepted(_summarize(source, "Run this:\n" + _F11_FENCE))


@pytest.mark.parametrize("source", [
    "You had better not run this.\n" + _F11_FENCE,
    "Please don't ever run this.\n" + _F11_FENCE,
    "It works. Never run this.\n" + _F11_FENCE,
    "Do not keep running this.\n" + _F11_FENCE,
    "It won't hurt. Never run this.\n" + _F11_FENCE,
    "Run this:\n" + _F11_FENCE + "Never run that.\n",
    # red team 126, F03: a did/has/was of another clause makes no report of the act
    "If the build was green, never run this.\n" + _F11_FENCE,
    "Once the migration has finished, do not run this.\n" + _F11_FENCE,
    "Whatever you have done, never run this.\n" + _F11_FENCE,
    "Run this:\n" + _F11_FENCE + "If CI was green, never run that.\n",
])
def test_a_fence_a_prohibition_points_at_is_still_denied(source):
    find(_summarize(source, "Run this:\n" + _F11_FENCE), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")


# red team 125, F02: a sentence between two fences that points down at the next ("Never run
# this.") was read as the fence above pointing back as well
_F02_SOURCE = "Run this:\n```\nmake test\n```\nNever run this.\n```\nmake deploy\n```\n"


@pytest.mark.parametrize("text", [
    "Run this:\n```\nmake test\n```\n",
    "Run this:\n```\nmake test\n```\nSkip the deploy step.\n",
    _F02_SOURCE,
])
def test_a_sentence_pointing_down_at_the_next_fence_governs_not_the_one_above(text):
    assert_accepted(_summarize(_F02_SOURCE, text))


@pytest.mark.parametrize("source, text, value", [
    (_F02_SOURCE, "Run this.\n```\nmake deploy\n```\n", "make deploy"),
    # a sentence pointing back (that, the above) still governs the fence above
    ("Run this:\n```\nmake test\n```\nNever run that.\n```\nmake deploy\n```\n", "Run this:\n```\nmake test\n```\n",
     "make test"),
    ("Run this:\n```\nmake test\n```\nNever run the above.\n\n```\nmake deploy\n```\n", "Run this:\n```\nmake test\n```\n",
     "make test"),
])
def test_a_sentence_between_two_fences_denies_the_one_it_points_at(source, text, value):
    find(_summarize(source, text), "I1", block="s1", value=value, evidence__change="negation_dropped")


# red team 125, F04: only a verb and a pointer ending its line governed a fence: a second
# sentence, an adverbial, "it", a passive and CRLF line ends governed nothing
@pytest.mark.parametrize("source, text", [
    ("Never run this. It wipes prod.\n" + _F11_FENCE, "Run this. It wipes prod.\n" + _F11_FENCE),
    ("Never run this in production.\n" + _F11_FENCE, "Run this in production.\n" + _F11_FENCE),
    ("Never run it.\n" + _F11_FENCE, "Run it.\n" + _F11_FENCE),
    ("Do not run the command below as root.\n" + _F11_FENCE, "Run the command below as root.\n" + _F11_FENCE),
    ("The following must never be run.\n" + _F11_FENCE, "The following must be run.\n" + _F11_FENCE),
    (_F11_FENCE + "Never run the above in production.\n", _F11_FENCE + "Run the above in production.\n"),
    (_F11_FENCE + "Don't run that, ever.\n", _F11_FENCE + "Run that.\n"),
    (_F11_FENCE + "The above must never be run.\n", _F11_FENCE + "The above must be run.\n"),
    (_F11_FENCE + "The above should never be executed.\n", "Run this:\n" + _F11_FENCE),
    ("Never run this.\r\n```\r\nmake deploy\r\n```\r\n", "Run this.\r\n```\r\nmake deploy\r\n```\r\n"),
    ("Never run this:\r\n```\r\nmake deploy\r\n```\r\n", "Run this:\r\n```\r\nmake deploy\r\n```\r\n"),
])
def test_a_fence_a_sentence_with_more_words_denies_rewritten_as_asked_is_refused(source, text):
    find(_summarize(source, text), "I1", block="s1", value="make deploy", evidence__change="negation_dropped")
    assert_accepted(_summarize(source, source))


@pytest.mark.parametrize("source", [
    # a redirect, a limit, an "it" with more words, a line ending in ":" after a denial
    "Don't run this, run the following instead.\n" + _F11_FENCE,
    "Run this once. Never run it twice.\n" + _F11_FENCE,
    "Build the image. Never run it as root.\n" + _F11_FENCE,
    "Never run the old script. Use the following:\n" + _F11_FENCE,
    "Run this in production.\n" + _F11_FENCE,
    _F11_FENCE + "The above must be run.\n",
    _F11_FENCE + "It was not run.\n",
    "Run this:\r\n```\r\nmake deploy\r\n```\r\nThe output was long.\r\n",
])
def test_a_fence_a_sentence_with_more_words_that_denies_nothing_is_accepted(source):
    assert_accepted(_summarize(source, "Run this:\n" + _F11_FENCE))


@pytest.mark.parametrize("sentence, pointer, negated", [
    (b"never run this. it wipes prod.", "below", True),
    (b"never run this. run the following.", "below", False),
    (b"never run this again.", "below", True),
    (b"never run this twice.", "below", False),
    (b"never run it as root.", "below", False),
    (b"the following must never be run.", "below", True),
    (b"the above must never be executed.", "above", True),
    (b"they should not be deployed.", "above", True),
    (b"it was not run.", "above", False),
    (b"never run the above. use this:", "above", False),
])
def test_fence_instruction_negated_reads_more_words(sentence, pointer, negated):
    regex = _FENCE_POINTER_BELOW if pointer == "below" else _FENCE_POINTER_ABOVE
    assert _fence_instruction_negated(sentence, regex, 0) is negated


# red team 126, F14: the sentence between two fences freed the fence above even when the fence
# below is the command's output, so "Never run this." over its output no longer denied it
_F14_COMMAND = "```\nmake deploy\n```\n"
_F14_OUTPUT = "```\nDeploying to prod... done\n```\n"


@pytest.mark.parametrize("source", [
    _F14_COMMAND + "Never run this.\n" + _F14_OUTPUT,
    _F14_COMMAND + "Never run this. It wiped prod last time:\n" + _F14_OUTPUT,
    # no line ending in ":" over the fence above: "this" may point back, the fence stays governed
    _F14_COMMAND + "Never run this.\n```\nmake status\n```\n",
    # the pointing sentence is not the whole line
    "Run this:\n" + _F14_COMMAND + "Never run this. It wiped prod last time:\n```\nmake status\n```\n",
])
def test_a_sentence_over_an_output_fence_still_denies_the_command_above(source):
    find(_summarize(source, "Run this:\n" + _F14_COMMAND), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")


@pytest.mark.parametrize("source, text", [
    (_F02_SOURCE, "Run this:\n```\nmake test\n```\n"),
    ("Run this:\n```\nmake test\n```\nNever run this.\n```\n$ make deploy\n```\n", "Run this:\n```\nmake test\n```\n"),
    ("Run this:\n```\nmake test\n```\n" + _F14_OUTPUT, "Run this:\n```\nmake test\n```\n"),
])
def test_a_sentence_pointing_down_at_a_command_fence_frees_the_one_above(source, text):
    assert_accepted(_summarize(source, text))


# red team 126, F10: encouraging sentences (a fear, a risk, a breakage or problems denied by a
# statement, "why not", "no reason not to", a regret in the past) were read as denying the block
@pytest.mark.parametrize("source", [
    "Don't be afraid to run this.\n" + _F11_FENCE,
    "It is not risky to run this.\n" + _F11_FENCE,
    "There's no reason not to run this.\n" + _F11_FENCE,
    "Why not just run this.\n" + _F11_FENCE,
    "It won't cause problems to run this.\n" + _F11_FENCE,
    "It can't break anything to run this.\n" + _F11_FENCE,
    "Run this:\n" + _F11_FENCE + "I never regretted running that.\n",
    "Run this:\n" + _F11_FENCE + "No one ever regrets running that.\n",
    "Run this:\n" + _F11_FENCE + "Not everyone needs to run that.\n",
])
def test_a_fence_an_encouraging_sentence_points_at_is_not_denied(source):
    assert_accepted(_summarize(source, "Run this:\n" + _F11_FENCE))


@pytest.mark.parametrize("source", [
    "Don't break prod by running this.\n" + _F11_FENCE,
    "Do not cause problems by running this.\n" + _F11_FENCE,
    "You must not break anything by running this.\n" + _F11_FENCE,
    "There's no reason to run this.\n" + _F11_FENCE,
    "It won't break prod to never run this.\n" + _F11_FENCE,
    "Don't be afraid: never run this.\n" + _F11_FENCE,
    "No one should run this.\n" + _F11_FENCE,
    "Why? Never run this.\n" + _F11_FENCE,
    "Run this:\n" + _F11_FENCE + "Not everyone should run that.\n",
    "Run this:\n" + _F11_FENCE + "Not everyone needs to run that, and nobody should run that.\n",
])
def test_a_fence_a_prohibition_near_an_encouraging_word_points_at_is_still_denied(source):
    find(_summarize(source, "Run this:\n" + _F11_FENCE), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")


# red team 126, F13: an adverb of a time that ends after a past "was" ("was temporarily blocked
# until yesterday") was read as a standing prohibition
@pytest.mark.parametrize("source", [
    "`make deploy` was temporarily blocked until yesterday.",
    "`make deploy` and `make test` were temporarily blocked until yesterday.",
])
def test_a_command_temporarily_blocked_in_the_past_is_asked(source):
    assert_accepted(_summarize(source, "Run `make deploy`."))


@pytest.mark.parametrize("source", [
    "`make deploy` is temporarily blocked until tomorrow.",
    "`make deploy` remains temporarily blocked.",
    "`make deploy` was permanently blocked.",
])
def test_a_command_blocked_for_good_or_now_is_still_prohibited(source):
    find(_summarize(source, "Run `make deploy`."), "I1", block="s1", value="make deploy",
         evidence__change="negation_dropped")
