"""Retrieval quality: `engram_eval locomo PATH` and `engram_eval paraphrase [PATH]`;
extraction quality: `engram_eval extraction [PATH]`; contradiction detection:
`engram_eval contradictions [PATH] [--judge rules|recorded:FILE|llm]`; the usage tracker's
cited / ignored marking: `engram_eval usage [PATH]`; the learned ranker, fitted on the dev splits of LoCoMo and
the paraphrase set: `engram_eval train-ranker LOCOMO_PATH [--write FILE]`; the contradictions
real chat raises: `engram_eval chat-contradictions PATH [--conversations 1-5]`."""

import json
from functools import partial
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memories.engine import ranker, rules_extractor
from memories.engine.contradiction import rules_verdict
from memories.evaluation import (
    chat_contradictions,
    contradictions,
    extraction,
    locomo,
    paraphrases,
    ranker_training,
    runner,
    store_contradictions,
    usage,
)
from memories.providers.embeddings import get_provider
from memories.providers.llm import get_llm_provider
from memories.services.embeddings import memory_vectors


def _categories(value: str) -> list[int]:
    try:
        found = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError as exc:
        raise CommandError(f"--categories takes numbers 1-5 separated by commas, not "
                           f"{value!r}") from exc
    if not found or any(c not in locomo.CATEGORY_NAMES for c in found):
        raise CommandError(f"--categories takes numbers 1-5 separated by commas, not {value!r}")
    return found


def _conversations(value: str) -> list[int]:
    """ "1-5", "6-10" or "1,3,7": 1-based positions of conversations in the file."""
    found = set()
    try:
        for part in value.split(","):
            low, _, high = part.strip().partition("-")
            found.update(range(int(low), int(high or low) + 1))
    except ValueError as exc:
        raise CommandError(f"--conversations takes numbers and ranges such as 1-5 or 1,3,7, "
                           f"not {value!r}") from exc
    if not found or min(found) < 1:
        raise CommandError(f"--conversations takes numbers from 1, not {value!r}")
    return sorted(found)


def _judge(value: str) -> tuple[contradictions.Judge, str]:
    """The judge `--judge` names, and how the report names it."""
    if value == "rules":
        return rules_verdict, "rules"
    if value.startswith("recorded:"):
        path = Path(value.removeprefix("recorded:"))
        try:
            return contradictions.RecordedJudge(path), f"recorded replies in {path}"
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
    if value == "llm":
        provider = get_llm_provider()
        name = f"{provider.name} {provider.gate_model}"
        return (lambda a, b: provider.judge(a, b).value), name
    raise CommandError(f"--judge takes rules, recorded:FILE.jsonl or llm, not {value!r}")


def _f(value) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def _held_out_hidden(report: dict, key: str, *, shown=lambda item: True) -> int:
    """Keeps in report[key] the dev split's items only, and says how many held-out items
    it leaves out. A held-out set is scored for figures alone: once its misses are read,
    the next change is tuned on them, and it is held out no more."""
    items = [item for item in report[key] if shown(item)]
    report[key] = [item for item in items if item["split"] != "heldout"]
    report[f"{key}_held_out_hidden"] = hidden = len(items) - len(report[key])
    return hidden


class Command(BaseCommand):
    requires_system_checks = []  # reads and writes memories only; no URLs or admin involved
    help = ("Retrieval evaluation. `locomo PATH`: evidence recall@5/10/20 and the share of "
            "questions whose evidence fits a 500-token context, for recall and BM25 / dense "
            "/ RRF baselines. `paraphrase [PATH]`: hit@1, hit@5, MRR@10 on queries worded "
            "unlike their memory. `extraction [PATH]`: recall, precision and gate accuracy "
            "of the rules extractor on annotated conversation chunks, per split (dev, heldout). "
            "`contradictions "
            "[PATH]`: precision and recall of a contradiction judge on labelled pairs. `usage "
            "[PATH]`: agreement of the usage tracker with hand-labelled turns. `train-ranker "
            "LOCOMO_PATH [--write FILE]`: fit the learned ranker on the dev splits of LoCoMo "
            "and the paraphrase set and print its coefficients. LoCoMo and paraphrase "
            "figures are reported per split (dev: tune on it; heldout: do not). "
            "`chat-contradictions PATH`: open contradictions per 1,000 turns of LoCoMo chat "
            "stored turn by turn (conversations 1-5 dev, 6-10 held out). "
            "`contradiction-sweep [PATH]`: how much a judge queues among nearest neighbours "
            "from other lines of the dev pairs, as in a store of facts. "
            "`store-contradictions [PATH]`: precision and recall of the open queue after a "
            "labelled store of facts is stored and scanned (held out by default).")

    def add_arguments(self, parser):
        parser.add_argument("benchmark",
                            choices=["locomo", "paraphrase", "extraction", "contradictions",
                                     "usage", "train-ranker", "chat-contradictions",
                                     "contradiction-sweep", "store-contradictions"])
        parser.add_argument("path", nargs="?", type=Path,
                            help="LoCoMo JSON (required for locomo), or paraphrase, "
                                 "extraction or contradictions JSONL (defaults to the set "
                                 "shipped with Engram)")
        parser.add_argument("--categories", default="1,2,3,4",
                            help="LoCoMo question categories, e.g. 1,2,3,4 (default)")
        parser.add_argument("--limit-conversations", type=int, default=None,
                            help="only the first N LoCoMo conversations")
        parser.add_argument("--split", choices=["dev", "heldout", "all"], default="all",
                            help="LoCoMo conversations: dev (1-5, the ones to tune on), "
                                 "heldout (6-10) or all (default; reported per split too)")
        parser.add_argument("--turns", choices=locomo.TURN_FORMATS, default="dated",
                            help="locomo: each turn's text with its session's date in front "
                                 "(dated, the default) or the speaker and words alone "
                                 "(plain); the date is each memory's valid_from either way")
        parser.add_argument("--reuse", type=Path, default=None, metavar="FILE",
                            help="locomo, paraphrase, train-ranker: record the stored "
                                 "conversations (and the paraphrase set) in FILE and, on "
                                 "later runs, ask the same store again instead of storing "
                                 "every text anew; a run or a fit on the same store is "
                                 "repeatable")
        parser.add_argument("--write", type=Path, default=None, metavar="FILE",
                            help="train-ranker: write the fitted coefficients to FILE "
                                 f"(the product reads {ranker.COEFFICIENTS_PATH.name})")
        parser.add_argument("--conversations", default=None,
                            help="chat-contradictions: which LoCoMo conversations, by position "
                                 "in the file (1-5 dev, 6-10 held out; default those of "
                                 "--split)")
        parser.add_argument("--batch-size", type=int, default=128)
        parser.add_argument("--judge", default="rules",
                            help="contradictions: rules (default), recorded:FILE.jsonl to "
                                 "replay recorded model replies, or llm for the configured "
                                 "model (calls it once per pair)")
        parser.add_argument("--statements", type=int, default=600,
                            help="contradiction-sweep: statements drawn (default 600)")
        parser.add_argument("--neighbours", type=int, default=5,
                            help="contradiction-sweep: nearest others each is judged "
                                 "against (default 5)")
        parser.add_argument("--show-flags", action="store_true",
                            help="store-contradictions: list the open queue and the labels "
                                 "missed (for dev stores: a held-out store's are not read)")
        parser.add_argument("--json", action="store_true", dest="as_json",
                            help="print JSON instead of tables")

    def handle(self, *args, benchmark, path, categories, limit_conversations, batch_size,
               judge, as_json, split, reuse, write, conversations, turns, statements,
               neighbours, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be positive.")
        if reuse is not None:
            try:  # refused before anything is stored, not after minutes of embedding
                runner.reuse_records(reuse)
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
        if benchmark == "chat-contradictions":
            numbers = (_conversations(conversations) if conversations else
                       [n for n, of in chat_contradictions.SPLIT_OF.items()
                        if split in ("all", of)])
            self._chat_contradictions(path, numbers, batch_size, as_json,
                                      named=conversations is not None)
            return
        if benchmark == "contradiction-sweep":
            if statements < 1 or neighbours < 1:
                raise CommandError("--statements and --neighbours must be positive.")
            self._contradiction_sweep(path, judge, statements, neighbours, as_json)
            return
        if benchmark == "store-contradictions":
            self._store_contradictions(path or store_contradictions.HELDOUT11_PATH, as_json,
                                       options["show_flags"])
            return
        if benchmark == "extraction":
            # no database and no embedding model: the rules extractor is pure
            self._extraction(path or extraction.DEFAULT_PATH, as_json)
            return
        if benchmark == "usage":
            # no database and no embedding model: the tracker is pure
            self._usage(path or usage.DEFAULT_PATH, as_json)
            return
        if benchmark == "contradictions":
            # no database and no embedding model: pairs are judged one by one
            # Recorded replies exist for the dev pairs only (they replay, they measure nothing).
            if judge.startswith("recorded:"):
                default = (contradictions.DEFAULT_PATH,)
            else:
                default = contradictions.available_paths()
                unwritten = [p.name for p in contradictions.HELDOUT_PATHS if p not in default]
                if unwritten and path is None:
                    # on stderr, so --json stays parseable
                    self.stderr.write(f"held-out pairs missing: {', '.join(unwritten)} "
                                      f"not written, so the held-out split is short")
            self._contradictions(path or default, judge, as_json)
            return
        if benchmark == "train-ranker":
            self._train_ranker(path, _categories(categories), reuse, write, as_json)
            return
        if benchmark == "locomo":
            if path is None:
                raise CommandError("locomo needs the path of a LoCoMo JSON file.")
            if limit_conversations is not None and limit_conversations < 1:
                raise CommandError("--limit-conversations must be positive.")
            chosen = _categories(categories)
            try:
                conversations = locomo.load(path)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise CommandError(f"cannot read {path}: {exc}") from exc
            conversations = [c for c in conversations[:limit_conversations]
                             if split in ("all", c.split)]
            report = runner.evaluate_locomo(
                conversations, categories=chosen, batch_size=batch_size, reuse=reuse,
                turn_format=turns,
                progress=self.stderr.write,  # progress on stderr keeps --json parseable
            )
            report["path"] = str(path)
        else:
            try:
                pairs, distractors = paraphrases.load(path or paraphrases.DEFAULT_PATH)
            except (OSError, ValueError) as exc:
                raise CommandError(f"cannot read {path}: {exc}") from exc
            if not pairs:
                raise CommandError("the paraphrase set has no pairs.")
            report = runner.evaluate_paraphrases(pairs, distractors, reuse=reuse)
            report["problems"] = paraphrases.problems(pairs, distractors)
            report["path"] = str(path or paraphrases.DEFAULT_PATH)
            _held_out_hidden(report, "recall_misses_at_1")
        report["embedding_model"] = get_provider().model_id
        if as_json:
            self.stdout.write(_dumps(report))
        elif benchmark == "locomo":
            self._locomo_table(report)
        else:
            self._paraphrase_table(report)

    def _locomo_table(self, report):
        out = self.stdout.write
        out(f"LoCoMo: {len(report['conversations'])} conversations, {report['turns']} turns "
            f"({report['turn_format']}) -> "
            f"{report['memories']} memories ({report['merged_turns']} turns merged into an "
            f"existing memory); {report['questions']} questions "
            f"({report['skipped_without_evidence']} without evidence skipped); "
            f"model {report['embedding_model']}")
        if report["evidence_fixes"]:
            out("evidence fixed: " + ", ".join(f"{k} {v}" for k, v in
                                              sorted(report["evidence_fixes"].items())))
        budget = report["token_budget"]
        out("")
        sections = [("all", report["methods"])]
        if len(report["splits"]) > 1:
            sections += list(report["splits"].items())
        for section, methods in sections:
            out(f"{'split ' + section:<14} {'method':<8} {'category':<15} {'n':>5}   "
                f"{'R@5':>6} {'R@10':>6} {'R@20':>6}   {'fit@' + str(budget):>7}")
            for method, groups in methods.items():
                for name, s in groups.items():
                    label = "all" if name == "all" else f"{name} {report['categories'][name]}"
                    out(f"{section:<14} {method:<8} {label:<15} {s['n']:>5}   "
                        f"{_f(s['r@5'])} {_f(s['r@10'])} {_f(s['r@20'])}   "
                        f"{_f(s[f'fit@{budget}']):>7}")
                out("")
        out(f"fit@{budget}: recall's evidence all in the /context text of {budget} tokens "
            f"(assemble_context); baselines: their memory texts added up")
        t = report["timing"]
        out(f"load {t['load_seconds']:.1f} s ({t['turns_per_second']} turns/s); recall mean "
            f"{t['recall_mean_ms']} ms, p95 {t['recall_p95_ms']} ms")

    def _paraphrase_table(self, report):
        out = self.stdout.write
        out(f"Paraphrases: {report['pairs']} pairs + {report['distractors']} distractors -> "
            f"{report['memories']} memories ({len(report['merged'])} merged); model "
            f"{report['embedding_model']}")
        for problem in report["problems"]:
            out(f"warning: {problem}")
        out("")
        out(f"{'method':<8} {'split':<8} {'hit@1':>6} {'hit@5':>6} {'MRR@10':>7}")
        sections = [("all", report["methods"]), *report["splits"].items()]
        for method in report["methods"]:
            for split, methods in sections:
                s = methods[method]
                out(f"{method:<8} {split:<8} {_f(s['hit@1'])} {_f(s['hit@5'])} "
                    f"{_f(s['mrr@10']):>7}")
        out("")
        t = report["timing"]
        out(f"load {t['load_seconds']:.2f} s; recall mean {t['recall_mean_ms']} ms")
        if report["recall_misses_at_1"]:
            out("")
            out("recall misses at 1 (dev):")
            for miss in report["recall_misses_at_1"]:
                out(f"  {miss['query']!r}: expected {miss['expected']!r}, got {miss['got']!r}")
        _say_hidden(out, report["recall_misses_at_1_held_out_hidden"])

    def _extraction(self, path, as_json):
        try:
            report = extraction.evaluate(path, rules_extractor)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        report["extractor"] = "rules"
        _held_out_hidden(report, "per_chunk",
                         shown=lambda row: row["missed"] or row["false_positives"])
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Extraction: {report['chunks']} chunks ({report['noise_chunks']} with nothing "
            f"to keep), {report['annotations']} annotated memories; extractor "
            f"{report['extractor']}")
        out("")
        out("Tune on dev only; quote held-out figures (dev was tuned on).")
        out("")
        out(f"{'split':<8} {'chunks':>6} {'recall':>7} {'precision':>9} {'extracted':>9} "
            f"{'gate':>6} {'gate/noise':>10} {'gate/content':>12}")
        for split, s in [*report["splits"].items(), ("all", report)]:
            out(f"{split:<8} {s['chunks']:>6} {_f(s['recall']):>7} {_f(s['precision']):>9} "
                f"{s['extracted']:>9} {_f(s['gate_accuracy'])} "
                f"{_f(s['gate_noise_accuracy']):>10} {_f(s['gate_content_accuracy']):>12}")
        if report["per_chunk"]:
            out("")
            out("misses and false positives (dev):")
        for row in report["per_chunk"]:
            for keywords in row["missed"]:
                out(f"  {row['id']}: missed {keywords}")
            for content in row["false_positives"]:
                out(f"  {row['id']}: kept {content!r}")
        _say_hidden(out, report["per_chunk_held_out_hidden"])

    def _train_ranker(self, path, categories, reuse, write, as_json):
        if path is None:
            raise CommandError("train-ranker needs the path of a LoCoMo JSON file.")
        try:
            conversations = locomo.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        pairs, distractors = paraphrases.load(paraphrases.DEFAULT_PATH)
        dialogue = ranker_training.locomo_rows(conversations, categories=categories,
                                               reuse=reuse, progress=self.stderr.write)
        if not dialogue:
            raise CommandError(f"{path} has no dev conversation with questions to fit on "
                               "(held-out conversations are never used for fitting).")
        sets = [dialogue, ranker_training.paraphrase_rows(pairs, distractors, reuse=reuse)]
        report = ranker_training.fit(sets)
        coefficients = report.pop("coefficients").to_json()
        report |= {"coefficients": coefficients, "split": ranker_training.TRAINING_SPLIT,
                   "locomo": str(path), "paraphrases": str(paraphrases.DEFAULT_PATH)}
        if write is not None:
            write.write_text(json.dumps(coefficients, indent=2) + "\n", encoding="utf-8")
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Ranker fitted on the {report['split']} splits: {report['questions'][0]} LoCoMo "
            f"questions and {report['questions'][1]} paraphrase queries, {report['rows']} "
            f"candidates ({report['positives']} relevant)")
        out(f"{'intercept':<14} {coefficients['intercept']:9.4f}")
        for name, weight in coefficients["weights"].items():
            out(f"{name:<14} {weight:9.4f}")
        if write is not None:
            out(f"written to {write}")

    def _usage(self, path, as_json):
        try:
            report = usage.evaluate(path)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Usage tracker on {path}: does cited / ignored agree with a person's label?")
        out("")
        out(f"{'split':<8} {'turns':>5} {'agreement':>9} {'precision':>9} {'recall':>7}")
        for split, s in report["splits"].items():
            out(f"{split:<8} {s['turns']:>5} {_f(s['agreement']):>9} {_f(s['precision']):>9} "
                f"{_f(s['recall']):>7}")
        if report["disagreements"]:
            out("")
            out("disagreements: " + ", ".join(f"{d['id']} (labelled {d['label']})"
                                               for d in report["disagreements"]))

    def _contradictions(self, path, judge, as_json):
        chosen, judge_name = _judge(judge)
        try:
            report = contradictions.evaluate(path, chosen)
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"cannot evaluate {path}: {exc}") from exc
        report["judge"] = judge_name
        if getattr(chosen, "note", ""):
            report["judge_note"] = chosen.note
        _held_out_hidden(report, "misses")
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Contradictions: {report['pairs']} pairs ({report['contradictory']} "
            f"contradictory); judge {report['judge']}")
        if report.get("judge_note"):
            out(f"note: {report['judge_note']}")
        out("")
        out(f"{'pairs':<24} {'n':>4} {'precision':>9} {'recall':>7} {'accuracy':>8}")
        groups = [("all", report), *((f"split {name}", s) for name, s in
                                     report["per_split"].items()),
                  *((f"kind {name}", s) for name, s in report["per_kind"].items())]
        for label, s in groups:
            out(f"{label:<24} {s['pairs']:>4} {_f(s['precision']):>9} {_f(s['recall']):>7} "
                f"{_f(s['accuracy']):>8}")
        if report["misses"]:
            out("")
            out("misses (dev):")
        for miss in report["misses"]:
            what = "missed" if miss["expected"] else "wrongly flagged"
            out(f"  {miss['id']} ({miss['kind']}): {what}: {miss['a']!r} / {miss['b']!r}")
        _say_hidden(out, report["misses_held_out_hidden"])


    def _contradiction_sweep(self, path, judge, statements, neighbours, as_json):
        chosen, judge_name = _judge(judge)
        paths = (path,) if path else contradictions.DEV_PATHS
        try:
            # neighbours as a store finds them: statements embedded as memories are
            report = contradictions.sweep(paths, chosen,
                                          partial(memory_vectors, get_provider()),
                                          statements=statements, neighbours=neighbours)
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"cannot sweep {', '.join(map(str, paths))}: {exc}") from exc
        report["judge"] = judge_name
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Contradiction sweep: {report['statements']} statements, each against its "
            f"{neighbours} nearest from other lines; judge {judge_name}")
        out(f"{report['pairs']} pairs, {report['queued']} queued "
            f"({_f(report['queued_share']).strip()})")
        for item in report["shown"]:
            out(f"  {item['confidence']:.2f}  {item['a'][:70]}  /  {item['b'][:70]}")

    def _store_contradictions(self, path, as_json, show_flags):
        if show_flags and path.resolve() in {held.resolve()
                                             for held in store_contradictions.HELDOUT_PATHS}:
            raise CommandError("--show-flags lists what a judge got wrong, which is read to "
                               "change the rules: not for the held-out store. Name a dev "
                               "store's path.")
        try:
            store = store_contradictions.load(path)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read the store: {exc}") from exc
        report = store_contradictions.evaluate(
            store, progress=lambda message: None if as_json else self.stdout.write(message))
        if not show_flags:  # figures only unless asked, and never for the held-out store
            del report["flags"], report["missed"]
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Store {path.name}: {report['statements']} statements, {report['memories']} "
            f"memories ({report['merged']} merged by dedup), {report['labelled']} labelled "
            f"contradictions ({report['merged_contradictions']} merged away)")
        out(f"open queue {report['open']} ({report['open_per_1000']} per 1,000 statements): "
            f"{report['true']} labelled, {report['false']} not; precision "
            f"{_f(report['precision']).strip()}, recall {_f(report['recall']).strip()}")
        for flag in report.get("flags", ()):
            out(f"  {'labelled' if flag['labelled'] else 'FALSE   '} {flag['confidence']:.2f}  "
                f"{flag['a'][:80]}  /  {flag['b'][:80]}  ({flag['reason'][:80]})")
        for pair in report.get("missed", ()):
            out(f"  missed {' / '.join(pair)}")

    def _chat_contradictions(self, path, numbers, batch_size, as_json, *, named=True):
        """`numbers` named with --conversations must all be in the file; those of a split
        are the ones the file has."""
        if path is None:
            raise CommandError("chat-contradictions needs the path of a LoCoMo JSON file.")
        try:
            conversations = locomo.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        if not named:
            numbers = [n for n in numbers if n <= len(conversations)] or numbers
        if max(numbers) > len(conversations):
            raise CommandError(f"{path} has {len(conversations)} conversations, not "
                               f"{max(numbers)}.")
        report = chat_contradictions.evaluate(
            [conversations[n - 1] for n in numbers], numbers, batch_size=batch_size,
            progress=self.stderr.write)
        report["path"] = str(path)
        # held-out conversations are scored for figures only: their flags are not shown
        report["flags_held_out_hidden"] = 0
        for row in report["conversations"]:
            if row["split"] != "dev":
                report["flags_held_out_hidden"] += len(row["flags"])
                row["flags"] = []
        if as_json:
            self.stdout.write(_dumps(report))
            return
        out = self.stdout.write
        out(f"Contradictions raised by chat in {path} (rules judge; one turn a memory)")
        out("")
        out(f"{'split':<8} {'conv':>4} {'turns':>6} {'open':>5} {'per 1,000 turns':>15} "
            f"{'stored':>6} {'stored per 1,000':>16}")
        for split, s in report["splits"].items():
            out(f"{split:<8} {s['conversations']:>4} {s['turns']:>6} {s['open']:>5} "
                f"{_f(s['open_per_1000_turns']):>15} {s['stored']:>6} "
                f"{_f(s['stored_per_1000_turns']):>16}")
        for row in report["conversations"]:
            for flag in row["flags"]:
                out(f"  {row['sample_id']} ({row['split']}): {flag['a']!r} / {flag['b']!r}: "
                    f"{flag['reason']}")
        _say_hidden(out, report["flags_held_out_hidden"], "flags")


def _say_hidden(out, hidden: int, what: str = "misses") -> None:
    if hidden:
        out(f"{hidden} held-out {what} not shown: held-out sets are scored for figures only")


def _dumps(report) -> str:
    return json.dumps(report, indent=2, default=str)
