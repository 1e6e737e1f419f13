"""The web table in a real browser: headless Chromium, driven through Selenium, plays full games
by clicking, is refused an illegal selection, watches four agents and steps through a replay.

Needs Debian's ``chromium`` and ``chromium-driver`` and ``pip install selenium`` (``.ci/run``
installs them). Without them the tests skip, unless ``BIG2_REQUIRE_BROWSER=1`` (as in CI),
which makes a missing browser a failure. ``BIG2_SCREENSHOTS=DIR`` saves the screenshots the
docs show into ``DIR`` (``BIG2_SCREENSHOTS=docs/web python -m pytest tests/web/test_web_browser.py``),
as WebP at quality 90: a sixth of the browser's PNG, its text as sharp (the tracked tree's budget,
``tests/docs/test_repo_size.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from big2_env import Game, Rules
from big2_env.web.server import make_server
from big2_env.web.tables import TableStore

REQUIRED = os.environ.get("BIG2_REQUIRE_BROWSER") == "1"
CHROMIUM, DRIVER = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # pragma: no cover - depends on the machine
    webdriver = None

MISSING = webdriver is None or CHROMIUM is None or DRIVER is None
if MISSING and REQUIRED:  # pragma: no cover
    raise RuntimeError("BIG2_REQUIRE_BROWSER=1 but selenium, chromium or chromedriver is missing")
pytestmark = pytest.mark.skipif(MISSING, reason="needs selenium, chromium and chromium-driver (.ci/run installs them)")


@pytest.fixture(scope="module")
def site():
    store = TableStore(("random", "greedy", "smart", "search:8"))
    server = make_server("127.0.0.1", 0, store)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield store, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    yield driver
    driver.quit()


def shot(driver, name: str, tmp_path: Path, docs: bool = True) -> None:
    """A screenshot (a PNG in ``tmp_path``); with ``BIG2_SCREENSHOTS=DIR``, one the docs show (``docs``) is
    also written as ``DIR/NAME.webp``, the format docs/web.md shows."""
    path = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(path)) and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    folder = os.environ.get("BIG2_SCREENSHOTS")
    if folder and docs:
        from PIL import Image  # matplotlib's dependency, in [test]

        Path(folder).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:
            image.convert("RGB").save(Path(folder) / f"{name}.webp", quality=90, method=6)


def wait(driver, condition, seconds: float = 60):
    return WebDriverWait(driver, seconds, poll_frequency=0.02).until(lambda d: condition(d))


def open_page(driver, url: str, mode: str, agents: list[str], seed: int, delay_ms: int = 0) -> None:
    driver.get(url)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "yes")
    Select(driver.find_element(By.ID, "mode")).select_by_value(mode)
    for select, agent in zip(driver.find_elements(By.CSS_SELECTOR, "#seat-pickers select.agent"), agents):
        Select(select).select_by_value(agent)
    driver.execute_script(f"document.getElementById('delay').value = {delay_ms}")
    seed_box = driver.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.game") is not None)


def status(driver) -> str:
    return driver.find_element(By.ID, "status").text


def page_scores(driver) -> list[int]:
    return [int(driver.find_element(By.ID, f"score-{seat}").get_attribute("data-score")) for seat in range(4)]


def engine_scores(replay: dict) -> list[int]:
    game = Game(Rules.coerce(replay["rules"]), seed=replay["seed"])
    for seat, cards in replay["moves"]:
        assert seat == game.current_player
        game.play(cards)
    return game.scores()


def click_play(driver, cards: list[int], by_chip: bool = False) -> None:
    """Select ``cards`` by clicking them in the hand (or their entry in the list of legal plays), then Play; [] passes."""
    driver.find_element(By.ID, "clear").click()
    if by_chip and cards:
        driver.find_element(By.CSS_SELECTOR, f"#legal-list button[data-cards='{','.join(map(str, cards))}']").click()
    for card in [] if by_chip else cards:
        driver.find_element(By.CSS_SELECTOR, f"#hand svg[data-card='{card}']").click()
    if cards:
        selected = {int(e.get_attribute("data-card")) for e in driver.find_elements(By.CSS_SELECTOR, "#hand svg.selected")}
        assert selected == set(cards)
    driver.find_element(By.ID, "play" if cards else "pass").click()


@pytest.mark.parametrize("seed", [3, 8])
def test_a_full_game_played_by_clicking_scores_as_the_engine_replaying_it(site, browser, seed, tmp_path):
    store, url = site
    open_page(browser, url, "play", ["random", "smart", "greedy"], seed)
    game_id = browser.execute_script("return document.body.dataset.game")
    rng = np.random.default_rng(seed)
    shots = 0
    while True:
        wait(browser, lambda d: status(d) == "your move" or status(d).startswith("game over"))
        if status(browser).startswith("game over"):
            break
        view = store.get(game_id).view()
        turn = view["turn"]
        if shots == 0 and sum(1 for play in view["legal"] if play) >= 3:  # a position with a choice, for the docs
            shot(browser, "play", tmp_path)
            shots = 1
        cards = view["legal"][rng.integers(len(view["legal"]))]  # only legal plays are clicked
        click_play(browser, cards, by_chip=bool(turn % 2))
        wait(browser, lambda d: int(d.execute_script("return document.body.dataset.turn")) > turn)
    replay = store.get(game_id).replay()
    assert page_scores(browser) == engine_scores(replay) == replay["scores"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history li")) == len(replay["moves"])
    shot(browser, "result", tmp_path, docs=False)  # the docs show the summary instead


def test_an_illegal_selection_is_explained_on_the_page_and_never_sent(site, browser, tmp_path):
    store, url = site
    open_page(browser, url, "play", ["random", "random", "random"], seed=21, delay_ms=0)
    wait(browser, lambda d: status(d) == "your move")
    game_id = browser.execute_script("return document.body.dataset.game")
    before = store.get(game_id).view()
    hand = before["hands"][0]
    ranks = {}
    for card in hand:
        ranks.setdefault(card // 4, card)
    pair = sorted(ranks.values())[:2]  # two cards of different ranks: never a legal play
    assert pair not in before["legal"]
    click_play(browser, pair)
    note = browser.find_element(By.ID, "selection-note").text
    assert note and ("no combination" in note or "does not beat" in note or "3" in note or "trick is" in note)
    shot(browser, "illegal", tmp_path)
    assert store.get(game_id).view() == before  # nothing was sent


def test_spectator_mode_shows_every_hand_and_plays_to_the_end(site, browser, tmp_path):
    store, url = site
    open_page(browser, url, "watch", ["search:8", "smart", "greedy", "random"], seed=5, delay_ms=1500)
    faces = len(browser.find_elements(By.CSS_SELECTOR, "#seats svg[data-card]"))
    game_id = browser.execute_script("return document.body.dataset.game")
    assert faces == sum(store.get(game_id).view()["cards_left"])  # every hand face up
    shot(browser, "watch", tmp_path)
    assert browser.find_element(By.ID, "insight-panel").is_displayed()  # in place from the start: the layout never jumps
    wait(browser, lambda d: "weighs" in d.find_element(By.ID, "insight-body").text, seconds=20)  # the search on move
    text = browser.find_element(By.ID, "insight-body").text
    assert "0: search:8 weighs" in text and "mean score" in text and "deals" in text
    shot(browser, "insight", tmp_path)
    browser.execute_script("document.getElementById('delay').value = 0")
    wait(browser, lambda d: status(d).startswith("game over"), seconds=120)
    replay = store.get(game_id).replay()
    assert page_scores(browser) == engine_scores(replay)


def test_the_page_opens_with_a_welcome_and_deals_in_at_one_click(site, browser, tmp_path):
    store, url = site
    browser.get(url)
    wait(browser, lambda d: d.execute_script("return document.body.dataset.ready") == "yes")
    welcome = browser.find_element(By.ID, "welcome")
    assert welcome.is_displayed() and "Welcome" in welcome.text and not browser.find_element(By.ID, "table").is_displayed()
    shot(browser, "welcome", tmp_path)
    browser.find_element(By.ID, "quick-start").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.game") is not None)
    assert not welcome.is_displayed() and browser.find_element(By.ID, "table").is_displayed()
    game_id = browser.execute_script("return document.body.dataset.game")
    human = store.get(game_id).view()["human"]
    places = {seat: browser.find_element(By.ID, f"seat-{seat}").get_attribute("class").split() for seat in range(4)}
    for offset, where in enumerate(["bottom", "left", "top", "right"]):  # you at the bottom, the others clockwise
        assert f"pos-{where}" in places[(human + offset) % 4]
    felt = browser.find_element(By.ID, "felt").rect
    boxes = {seat: browser.find_element(By.ID, f"seat-{seat}").rect for seat in range(4)}
    assert boxes[(human + 2) % 4]["y"] < boxes[(human + 1) % 4]["y"] < boxes[human]["y"] <= felt["y"] + felt["height"]
    assert boxes[(human + 1) % 4]["x"] < boxes[(human + 2) % 4]["x"] < boxes[(human + 3) % 4]["x"]


def test_each_seat_shows_its_last_play_and_the_game_ends_with_a_summary(site, browser, tmp_path):
    store, url = site
    open_page(browser, url, "watch", ["random", "greedy", "smart", "greedy"], seed=9, delay_ms=0)
    game_id = browser.execute_script("return document.body.dataset.game")
    wait(browser, lambda d: status(d).startswith("game over"), seconds=120)
    replay = store.get(game_id).replay()
    for seat in range(4):
        last = [cards for player, cards in replay["moves"] if player == seat][-1]
        strip = browser.find_element(By.CSS_SELECTOR, f"#seat-{seat} .last-play")
        shown = len(strip.find_elements(By.CSS_SELECTOR, "svg.card"))
        assert shown == len(last) and (("played" in strip.text) if last else ("passed" in strip.text))
    winner = int(np.argmax(engine_scores(replay)))
    assert "wins" in browser.find_element(By.ID, "result-title").text
    assert "winner" in browser.find_element(By.ID, f"seat-{winner}").get_attribute("class").split()
    assert "winner" in browser.find_element(By.ID, f"score-{winner}").get_attribute("class")
    assert browser.find_element(By.ID, "again").is_displayed()
    shot(browser, "summary", tmp_path)
    browser.find_element(By.ID, "again").click()  # a new game with the same settings
    wait(browser, lambda d: d.execute_script("return document.body.dataset.game") not in (None, game_id))


def test_a_replay_loads_into_the_page_and_steps_move_by_move(site, browser, tmp_path):
    game = Game(seed=12)
    while not game.is_over:
        game.play(game.legal_plays()[0])
    from big2_env.engine.replay import replay_dict

    replay = replay_dict(game, 12, ["north", "east", "south", "west"])
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(replay))
    _, url = site
    browser.get(url)
    wait(browser, lambda d: d.execute_script("return document.body.dataset.ready") == "yes")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(browser, lambda d: d.find_element(By.ID, "replay-controls").is_displayed())
    moves = len(replay["moves"])
    assert browser.find_element(By.ID, "step-label").text == f"move 0 of {moves}"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seats svg[data-card]")) == 52
    browser.find_element(By.ID, "step-next").click()
    assert browser.find_element(By.ID, "step-label").text == f"move 1 of {moves}"
    shot(browser, "replay", tmp_path)
    browser.find_element(By.ID, "step-last").click()
    assert browser.find_element(By.ID, "step-label").text == f"move {moves} of {moves}"
    assert page_scores(browser) == game.scores()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**replay, "seed": 13}))
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    wait(browser, lambda d: "cannot load bad.json" in status(d))
