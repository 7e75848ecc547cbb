"""The page's words for the server's codes (issue 39, item 4): one English wording per code.

* ``static/i18n/codes.en.js`` is what ``python -m baccarat.server.catalogue_js`` writes now (it cannot go
  stale), it holds every code of :data:`baccarat.core.messages.CATALOGUE`, and ``en.js`` holds none of them
  (only the page's own words); ``zh-CN.js`` words every code and every key of the English page.
* The catalogue's templates use only the format specs the page reads (:data:`~baccarat.core.messages.SPECS`),
  no conversion (``!r``) and no spec of Python's own (``:g``), and follow one convention: a sentence with a
  final full stop (``word.*`` aside).
* The page (``static/i18n.js`` run by Node, where it is installed) reads those specs as the server does:
  ``money``, ``name``, ``a_name``, ``seconds``, ``utc``, ``list``, ``or_list``, ``word``; its English for a
  code is the server's English for the same params; templates with plain ``{name}`` (zh-CN) still work, and
  so do the page's own strings.
"""

from __future__ import annotations

import json
import re
import shutil
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baccarat.core.messages import CATALOGUE, SPECS, render
from baccarat.server import catalogue_js
from baccarat.server.playing.game_info import games_json

STATIC = Path(catalogue_js.__file__).parent / "static"
I18N = STATIC / "i18n"
CHINESE = ("zh-CN", "zh-Hant")  #: the page's Chinese catalogues: Simplified, Traditional


def _keys(path: Path) -> set[str]:
    """The keys of a catalogue file: one ``"key": value`` an entry, at the start of its line (several on a line
    only for the page's ranks and suits)."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        found.update(re.findall(r'(?:^\s*|,\s+)"([^"]+)":\s', line))
    return found


# --- the generated file ------------------------------------------------------------------------------


def test_the_generated_english_is_what_the_generator_writes_now():
    assert catalogue_js.PATH == I18N / "codes.en.js"
    assert catalogue_js.PATH.read_text(encoding="utf-8") == catalogue_js.source(), (
        f"codes.en.js is out of date: run {catalogue_js.COMMAND}")
    assert catalogue_js.main(["--check"]) == 0
    head = catalogue_js.source().splitlines()[0]
    assert "do not edit" in head and catalogue_js.COMMAND in head


def test_every_code_reaches_the_page_s_english_once_and_en_js_keeps_only_the_page_s_words():
    generated = _keys(I18N / "codes.en.js")
    assert generated == set(CATALOGUE)
    page = _keys(I18N / "en.js")
    assert len(page) > 400  # the page's own words were read
    assert not page & set(CATALOGUE), sorted(page & set(CATALOGUE))


@pytest.mark.parametrize("language", CHINESE)
def test_each_chinese_words_every_code_and_every_key_of_the_english_page(language: str):
    chinese = _keys(I18N / f"{language}.js")
    assert not set(CATALOGUE) - chinese, sorted(set(CATALOGUE) - chinese)
    english = _keys(I18N / "en.js") | set(CATALOGUE)
    assert chinese == english, sorted(chinese ^ english)


def test_the_pages_are_modules_and_english_is_the_generated_words_then_the_page_s():
    for page, entry in (("index.html", "app.js"), ("operator.html", "operator.js")):
        html = (STATIC / page).read_text(encoding="utf-8")
        assert re.findall(r"<script[^>]*>", html) == [f'<script type="module" src="/static/{entry}">'], page
    words = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert 'en: { ...codes, ...en }' in words  # the page's English may reword nothing of the server's (above)
    for name in ("codes.en.js", "en.js", *(f"{language}.js" for language in CHINESE)):
        assert f'from "./i18n/{name}"' in words, name


def _chinese_texts() -> dict[str, str]:
    """Every Chinese text a player reads, by where it is: the catalogues (fair.js's words among them) and the
    registry's names and events' words (GET /api/games)."""
    texts = {language: (I18N / f"{language}.js").read_text(encoding="utf-8") for language in CHINESE}
    games = games_json()
    for language in CHINESE:
        texts[f"registry {language}"] = json.dumps(
            [[game["names"].get(language)] + [[w["names"].get(language), w["event_names"].get(language)]
                                              for w in game["wagers"]] for game in games], ensure_ascii=False)
    return texts


def test_the_chinese_catalogues_say_you_one_way_at_the_table():
    """您, the polite form a casino's staff use, everywhere: 你 only inside 迷你 (mini)."""
    texts = _chinese_texts()
    assert all("您" in texts[where] for where in CHINESE)
    informal = {where: re.findall(r".{0,12}(?<!迷)你.{0,12}", text) for where, text in texts.items()}
    assert not any(informal.values()), {where: found for where, found in informal.items() if found}


#: Characters found only in Simplified writing (their Traditional forms differ), common in the table's words.
SIMPLIFIED_ONLY = "这们个为张发时设请还说样该赢闲庄龙宝过关钱对开门见长东书买卖读写电话认让问题头页码筹输点币户余额库务"


def test_traditional_chinese_is_written_in_traditional_characters_and_names_every_game_and_wager():
    texts = _chinese_texts()
    for where in ("zh-Hant", "registry zh-Hant"):
        found = sorted({c for c in texts[where] if c in SIMPLIFIED_ONLY})
        assert not found, (where, found)
        assert sum("\u4e00" <= c <= "\u9fff" for c in texts[where]) > 20, where  # Chinese was read
    for game in games_json():  # every built-in game's and wager's name, and every event's words, in both scripts
        for language in CHINESE:
            assert game["names"].get(language), (game["code"], language)
            for wager in game["wagers"]:
                assert wager["names"].get(language), (game["code"], wager["code"], language)
                assert set(wager["event_names"][language]) == set(wager["event_names"]["zh-CN"])


# --- the templates -----------------------------------------------------------------------------------


def test_a_template_uses_only_the_specs_the_page_reads():
    unread = [f"{code}: {{{field}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
              for code, template in CATALOGUE.items()
              for _, field, spec, conversion in string.Formatter().parse(template)
              if field is not None and (conversion is not None or (spec and spec not in SPECS))]
    assert unread == []


def test_every_template_is_a_sentence_and_every_word_a_piece_of_one():
    for code, template in CATALOGUE.items():
        if code.startswith("word."):
            assert not template.endswith("."), code
        else:
            assert template.endswith(".") and not template[0].islower(), code


def test_the_words_a_player_reads():
    assert render("bet.above_maximum", {"wager": "banker", "amount": 999_999, "maximum": 2_500},
                  names={"wager": "Banker"}) == "Banker bet 9999.99 is above its maximum of 25.00: take chips off."
    assert render("round.not_in_play", {"round": 4, "status": "no_action"}) == (
        "Round 4 is already over without bets: only a round in play can be voided.")
    assert render("news.seat_freed", {"seat": 2, "name": "ann", "seconds": 30.0}) == (
        "Seat 2 is free: ann was away for more than 30 seconds.")
    assert render("protection.limit_period", {"periods": ["day", "week", "month"], "period": "year"}) == (
        'A limit is per day, week or month, not "year".')
    assert render("protection.timeout", {"until": "2026-11-22T12:00:30+00:00", "help_phone": "0800 000",
                                         "help_site": "help.example"}) == (
        "You are taking a time-out until 2026-11-22 12:01 UTC: you can see your balance and history, and play "
        "again after that. Help: 0800 000, help.example.")


def test_a_spec_or_a_conversion_the_page_cannot_read_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(CATALOGUE, "test.python_spec", "{most:g} seconds.")
    monkeypatch.setitem(CATALOGUE, "test.conversion", "{name!r} is taken.")
    with pytest.raises(ValueError, match="not one of the catalogue's"):
        render("test.python_spec", {"most": 1.5})
    with pytest.raises(ValueError, match="no conversions"):
        render("test.conversion", {"name": "x"})


# --- the page reads them (static/i18n.js in Node) -----------------------------------------------------

_HARNESS = r"""
import { readFileSync } from "node:fs";
const [url, language, expressions, games] = JSON.parse(readFileSync(0, "utf8"));
const page = await import(url);
page.setLanguage(language);
page.rememberGames(games);  // GET /api/games: the games' own names
const names = Object.keys(page);
const results = {};
for (const [name, expression] of Object.entries(expressions)) {
  // the expression with the module's names in scope (Node runs no page CSP)
  try { results[name] = new Function(...names, `return (${expression});`)(...names.map((n) => page[n])); }
  catch (error) { results[name] = `ERROR ${error}`; }
}
results["missing keys"] = [...page.missingKeys];
process.stdout.write(JSON.stringify(results));
"""


def _page(expressions: dict[str, str], language: str = "en") -> dict[str, Any]:
    """Each expression evaluated with the names of the page's words module (``static/i18n.js``, which imports
    the catalogues) in scope, in ``language``, the clock's zone UTC; skipped where Node is not installed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed: the page's scripts are not run here (the browser tests run them)")
    url = (STATIC / "i18n.js").as_uri()
    done = subprocess.run([node, "--input-type=module", "-e", _HARNESS],
                          input=json.dumps([url, language, expressions, games_json()]),
                          capture_output=True, text=True, check=True, env={"TZ": "UTC", "PATH": ""})
    results: dict[str, Any] = json.loads(done.stdout)
    return results


def _js(value: object) -> str:
    return json.dumps(value)


def _code(code: str, params: dict[str, Any]) -> str:
    return f"codeText({_js(code)}, {_js(params)}, 'UNKNOWN')"


def test_the_page_reads_each_spec_as_the_server_does():
    cases = {
        "money": (_code("bet.above_maximum", {"wager": "banker", "amount": 999_999, "maximum": 500_000}),
                  "Banker bet 9,999.99 is above its maximum of 5,000.00: take chips off."),
        "a_name": (_code("bet.needs_base", {"wager": "draw", "base": "enter"}),
                   "Draw needs an Enter bet on the same seat: put chips on Enter too."),
        "a_name a": (_code("bet.needs_base", {"wager": "dragon_bonus_player", "base": "player"}),
                     "Dragon Bonus on Player needs a Player bet on the same seat: put chips on Player too."),
        "seconds": (_code("rate.limited", {"rule": "username", "seconds": 1}),
                    "Too many failed sign-ins for this username: try again in 1 second."),
        "seconds plural": (_code("news.seat_freed", {"seat": 2, "name": "ann", "seconds": 30}),
                           "Seat 2 is free: ann was away for more than 30 seconds."),
        "utc": (_code("protection.timeout", {"until": "2026-11-22T12:00:30+00:00", "help_phone": "0800 000",
                                             "help_site": "help.example"}),
                "You are taking a time-out until 22 Nov 2026, 12:01: you can see your balance and history, and "
                "play again after that. Help: 0800 000, help.example."),
        "list": (_code("wager.unknown", {"wager": "nope", "game": "mini", "wagers": ["banker", "player", "tie"]}),
                 'Mini-Baccarat has no wager "nope": its wagers are Banker, Player, Tie.'),
        "list of numbers": (_code("reason.banker_draws_third", {"total": 4, "third": 3, "draws_on": [2, 3, 4]}),
                            "Banker draws on 4 with the Player's third card 3 (draws when it is 2, 3, 4)."),
        "or_list": (_code("protection.limit_period", {"periods": ["day", "week", "month"], "period": "year"}),
                    'A limit is per day, week or month, not "year".'),
        "or_list of two": (_code("protection.limit_kind", {"kinds": ["loss", "stake"], "kind": "win"}),
                           'A limit is on loss or stake, not "win".'),
        "word": (_code("round.not_in_play", {"round": 4, "status": "no_action"}),
                 "Round 4 is already over without bets: only a round in play can be voided."),
        "word of an operator's action": (_code("auth.staff_only", {"action": "void_rounds", "roles": ["pit_boss"]}),
                                         "Only staff with the role pit boss may void rounds: ask one of them."),
        "or_list of words": (_code("account.role", {"roles": ["player", "cashier", "pit_boss"]}),
                             "A role is one of player, cashier or pit boss: choose one of them."),
        "a value without words": (_code("round.not_in_play", {"round": 4, "status": "lost"}),
                                  "Round 4 is already lost: only a round in play can be voided."),
        "a code the page does not know": (_code("nothing.known", {}), "UNKNOWN"),
        "the page's own words": ('t("lobby.meta", {min: "1.00", max: "500.00", seated: 2, seats: 7})',
                                 "Bets 1.00 to 500.00 · 2 / 7 seated"),
        "the page's own function": ('t("spot.crowd", {n: 1, total: "5.00"})', "1 player · 5.00"),
        "a spec given words already": ('t("bet.at_maximum", {wager: "Banker", maximum: "25.00"})',
                                       "Banker is at its maximum of 25.00: bet on another spot."),
        "a refusal": ("refusalText({code: 'bet.closed', params: {round: 3}, message: 'server words'})",
                      "No more bets: betting closed for round 3. Bet on the next round."),
    }
    results = _page({name: expression for name, (expression, _) in cases.items()})
    assert {name: results[name] for name in cases} == {name: words for name, (_, words) in cases.items()}
    assert results["missing keys"] == []


def test_chinese_templates_with_plain_names_and_with_specs_both_read():
    results = _page({
        "plain": _code("bet.above_maximum", {"wager": "banker", "amount": 999_999, "maximum": 500_000}),
        "banker": 'wagerName("banker")',
        "seconds": _code("rate.limited", {"rule": "username", "seconds": 30}),
        "word": 't("word.rule.username")',
        "until": _code("protection.timeout", {"until": "2026-11-22T12:00:30+00:00", "help_phone": "0800 000",
                                              "help_site": "help.example"}),
        "until words": 'dateTime("2026-11-22T12:00:30+00:00")',
        "spec": 'fill("{amount:money}，{base:a_name}，{s:seconds}，{p:or_list}", '
                '{amount: 1250, base: "enter", s: 5, p: ["day", "week", "month"]}, String)',
        "list.or": 't("list.or")',
        "enter": 'wagerName("enter")',
    }, language="zh-CN")
    assert results["banker"] in results["plain"] and "9,999.99" in results["plain"] and "5,000.00" in results["plain"]
    assert results["word"] in results["seconds"] and "30" in results["seconds"] and "{" not in results["seconds"]
    assert results["until words"] in results["until"]
    assert results["spec"] == f"12.50，{results['enter']}，5 秒，day、week{results['list.or']}month"
    assert results["missing keys"] == []


def _sample(field: str, spec: str) -> object:
    """A machine value for a field with this spec, as a raise site would pass it."""
    if spec == "money":
        return 1250
    if spec in ("list", "or_list"):
        return ["banker", "player"] if field == "wagers" else ["one", "two", "three"]
    if spec == "utc":
        return "2026-11-22T12:00:00+00:00"
    if spec == "word":
        return next(key.rsplit(".", 1)[1] for key in CATALOGUE if key.startswith(f"word.{field}."))
    if spec == "seconds":
        return 5
    if spec in ("name", "a_name"):
        return "banker"
    # a field without a spec: a number, or text no catalogue has a name for (the page words such a field by its
    # name: an unknown wager's code, which the page would name if it knew it)
    return 7 if field in ("seat", "round", "total", "third", "seats", "shoe", "table") else "nope"


def test_the_page_s_english_for_every_code_is_the_server_s():
    """The same template and params make the same words on the page as in the server's ``message``, except a
    time (the page shows it in the player's zone) and a list of wagers (the page names each one)."""
    params = {code: {field: _sample(field, spec or "") for _, field, spec, _ in string.Formatter().parse(template)
                     if field}
              for code, template in CATALOGUE.items()}
    results = _page({code: _code(code, values) for code, values in params.items()})
    names = {"wager": "Banker", "base": "Banker"}
    differ = {}
    for code, values in params.items():
        server = render(code, values, names=names)
        if "wagers" in values:
            server = server.replace("banker, player", "Banker, Player")
        if "utc" in {spec for _, _, spec, _ in string.Formatter().parse(CATALOGUE[code])}:
            server = server.replace("2026-11-22 12:00 UTC", "22 Nov 2026, 12:00")
        if results[code] != server:
            differ[code] = (results[code], server)
    assert not differ, "\n".join(f"{code}: page {page!r}, server {server!r}" for code, (page, server) in differ.items())
    assert results["missing keys"] == []


def test_a_browser_s_language_picks_its_catalogue_and_chinese_by_its_script():
    tags = {"zh-HK": "zh-Hant", "zh-MO": "zh-Hant", "zh-TW": "zh-Hant", "zh-Hant": "zh-Hant", "zh-Hant-HK": "zh-Hant",
            "zh-hant-tw": "zh-Hant", "zh-CN": "zh-CN", "zh": "zh-CN", "zh-SG": "zh-CN", "zh-Hans-HK": "zh-CN",
            "en-GB": "en", "en": "en", "fr-FR": None}
    results = _page({tag: f"catalogueFor({_js(tag)})" for tag in tags})
    assert {tag: results[tag] for tag in tags} == tags


def test_traditional_chinese_names_the_games_and_reads_a_simplified_name_before_english():
    results = _page({
        "banker": 'wagerName("banker")',
        "ez": 'gameName("ez")',
        "event": 'eventName("Win by 9", "dragon_bonus_banker")',
        "refusal": _code("bet.above_maximum", {"wager": "banker", "amount": 999_999, "maximum": 500_000}),
        "a file's tiger named in Simplified only": (
            'rememberWagers([{code: "tiger", name: "Tiger", names: {"zh-CN": "老虎"}}]), wagerName("tiger")'),
        "a file's wager named in English only": (
            'rememberWagers([{code: "ox", name: "Ox", names: {}}]), wagerName("ox")'),
    }, language="zh-Hant")
    assert (results["banker"], results["ez"], results["event"]) == ("莊", "免佣百家樂", "贏 9 點")
    assert "莊" in results["refusal"] and "9,999.99" in results["refusal"]
    assert results["a file's tiger named in Simplified only"] == "老虎"
    assert results["a file's wager named in English only"] == "Ox"
    assert results["missing keys"] == []
