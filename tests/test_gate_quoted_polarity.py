"""A summary quotes its sources' words with their polarity (docs/gate.md, I1 — "quoted
polarity"): a quotation whose every occurrence in the block's sources stands under a negation of
its clause is refused where the summary drops the negation, and the other way round. The
quotation rule denies only the words right after a negation, so the user's ``Do not run "make
deploy"`` summarized as ``The user asked to run "make deploy"`` was accepted. The suite runs
once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, find, store_with, summary

from provgate.gate import Gate, _clause_negated


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
