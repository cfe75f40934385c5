"""Back-office load times in a real browser (Playwright on Debian's Chromium) at 100 users × 1,000 memories.

    python bench/pages_browser.py [--users 100] [--memories 1000] [--data DIR] [--rounds 1]

Starts ``streamlit run app.py`` on fresh data (bench.synthetic, hash embedder: e5 would take an hour to embed
100,000 memories and says nothing about page speed), waits until the server answers its health check, then, in a
fresh browser:

- cold first load: from opening the app's address to its first page being interactive (the title shown and the
  script run over), on a server that has served nothing yet — target ≤ 3 s;
- first visit of each page, through the sidebar as a person clicks — target ≤ 2 s each;
- repeat visit of each page.

Beside each round it cold-loads, on a fresh server of its own, a two-page Streamlit app that loads nothing
(``FLOOR_APP``): what Streamlit and the browser cost on this machine before MemLens runs a line, so the first load
can be read against it (``first_load_over_floor_s``) on a machine slower or faster than the one the targets were
set on. With ``--rounds N`` the whole thing runs N times, each on a newly started server. Prints every time and writes
``bench/results/pages_browser.json`` (with the machine's load). A sign-in gate, when accounts exist, is passed
with ``MEMLENS_BENCH_USER`` / ``MEMLENS_BENCH_PASSWORD``; on fresh data there are no accounts.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FIRST_LOAD_TARGET_S, FIRST_VISIT_TARGET_S = 3.0, 2.0
#: the script run is over: a title, no 'running' indicator, no skeleton placeholders
SETTLED_JS = """(before) => {
  const h = document.querySelector('h1');
  if (!h || (before && h.innerText.trim() === before)) return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  return !document.querySelector('[data-testid="stSkeleton"]');
}"""


#: the frame of a Streamlit app with nothing behind it: a title, a sidebar widget, two pages; the second shows the
#: element kinds whose browser code Streamlit loads on first use (a table, a plotly chart)
FLOOR_APP = """import streamlit as st

st.set_page_config(page_title="floor", layout="wide")


def home():
    st.title("Floor")
    st.write("nothing to load")


def other():
    import plotly.graph_objects as go

    st.title("Other")
    st.dataframe([{"a": i, "b": str(i)} for i in range(20)])
    st.plotly_chart(go.Figure(go.Bar(x=[1, 2], y=[3, 1])))


page = st.navigation([st.Page(home, title="Home", default=True), st.Page(other, title="Other", url_path="other")])
with st.sidebar:
    st.selectbox("User", ["a", "b"])
page.run()
"""


def build(data: str, users: int, memories: int) -> float:
    os.environ.update(MEMLENS_DATA_DIR=data, MEMLENS_EMBEDDER="hash")
    sys.path.insert(0, str(ROOT))
    from bench.synthetic import Plan, populate
    from memory.config import Settings
    from memory.service import MemoryService

    start = time.perf_counter()
    svc = MemoryService(Settings())
    populate(svc, Plan(users=users, memories_per_user=memories, retrievals_per_user=10))
    svc.close()
    return time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: str, log_path: Path, script: str = "app.py") -> tuple[subprocess.Popen, str, float]:
    """``streamlit run app.py``; returns the process, its address and the seconds until it answered /health."""
    port = _free_port()
    env = {**os.environ, "MEMLENS_DATA_DIR": data, "MEMLENS_EMBEDDER": "hash", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true", "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    log = log_path.open("w")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    while time.perf_counter() - start < 120:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited with {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url, time.perf_counter() - start
        except OSError:
            time.sleep(0.05)
    raise SystemExit("streamlit did not become healthy in 120 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        print("streamlit did not stop within 30 s of SIGTERM: killed", flush=True)
        proc.kill()
        proc.wait(10)


def settle(page, before: str | None, timeout_ms: int = 60_000) -> None:
    """Wait until a page other than the one titled ``before`` has finished its script run."""
    page.wait_for_function(SETTLED_JS, arg=before, timeout=timeout_ms, polling=25)
    if page.locator('[data-testid="stException"]').count():
        raise SystemExit(f"exception on {page.url}: {page.locator('[data-testid=stException]').first.inner_text()}")


def sign_in_if_asked(page) -> None:
    """Pass a sign-in form when the app shows one (accounts exist); fresh bench data has none."""
    if not page.locator('input[type="password"]').count():
        return
    user, password = os.environ.get("MEMLENS_BENCH_USER"), os.environ.get("MEMLENS_BENCH_PASSWORD")
    if not (user and password):
        raise SystemExit("the app asks to sign in: set MEMLENS_BENCH_USER and MEMLENS_BENCH_PASSWORD")
    page.locator('input[type="text"]').first.fill(user)
    page.locator('input[type="password"]').first.fill(password)
    page.keyboard.press("Enter")


def nav_links(page) -> list[tuple[str, str]]:
    """(title, href) of every sidebar link (the text ends with the title; an icon name may come first)."""
    links = page.locator('[data-testid="stSidebarNavLink"]')
    found = []
    for i in range(links.count()):
        link = links.nth(i)
        found.append((link.inner_text().strip().splitlines()[-1], link.get_attribute("href") or ""))
    return found


def visit(page, href: str) -> float:
    """Click the page's sidebar link; seconds until its script run is over."""
    before = page.locator("h1").first.inner_text().strip()
    start = time.perf_counter()
    page.locator(f'[data-testid="stSidebarNavLink"][href="{href}"]').first.click()
    settle(page, before)
    return time.perf_counter() - start


BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]


def cold_load(p, url: str):
    """A fresh browser opens ``url``: (browser, page, seconds until the first page is interactive)."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    start = time.perf_counter()
    page.goto(url)
    sign_in_if_asked(page)
    settle(page, None)
    return browser, page, time.perf_counter() - start


def floor_first_load(data: str) -> tuple[float, float]:
    """Cold first load of :data:`FLOOR_APP` on a server of its own (same flags, same browser settings), and the
    first visit of its second page until its plotly chart is drawn: the browser loads and compiles plotly.js the
    first time a page shows a chart, which is what a person waits for on the first page with one."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="memlens-floor-") as tmp:
        script = Path(tmp) / "floor_app.py"
        script.write_text(FLOOR_APP)
        proc, url, _ = start_server(data, Path(tmp) / "floor.log", str(script))
        try:
            with sync_playwright() as p:
                browser, page, took = cold_load(p, url)
                start = time.perf_counter()
                visit(page, nav_links(page)[1][1])
                page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)  # drawn, not just placed
                visit_s = time.perf_counter() - start
                browser.close()
        finally:
            stop(proc)
    return took, visit_s


def one_round(url: str) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser, page, first_load = cold_load(p, url)
        links = nav_links(page)
        here = page.url.rstrip("/")
        first_title = next((t for t, h in links if h.rstrip("/") == here), links[0][0])
        first, repeat = {first_title: first_load}, {}
        for title, href in links:
            if title not in first:
                first[title] = visit(page, href)
        for title, href in links[1:] + links[:1]:
            repeat[title] = visit(page, href)
        browser.close()
    return {"first_load_s": first_load, "first_page": first_title, "first_visit_s": first, "repeat_visit_s": repeat}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--data", help="reuse a data folder built by an earlier run (skips the build)")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing (apt-get install chromium)")
    data = args.data or tempfile.mkdtemp(prefix="memlens-bench-browser-")
    built = 0.0 if args.data else build(data, args.users, args.memories)
    print(f"data: {args.users} users × {args.memories} memories in {data} (built in {built:.1f} s)", flush=True)
    rounds = []
    for n in range(args.rounds):
        floor_s, floor_visit_s = floor_first_load(data)
        proc, url, up_s = start_server(data, Path(tempfile.gettempdir()) / f"memlens-bench-streamlit-{n}.log")
        try:
            r = {
                "server_up_s": round(up_s, 2),
                "floor_first_load_s": round(floor_s, 2),
                "floor_first_chart_visit_s": round(floor_visit_s, 2),
                **one_round(url),
            }
            r["first_load_over_floor_s"] = round(r["first_load_s"] - floor_s, 2)
        finally:
            stop(proc)
        rounds.append(r)
        cold = f"cold first load ({r['first_page']}) {r['first_load_s']:.2f} s (an empty app: {floor_s:.2f} s)"
        cold += f"; its first page with a table and a chart: {floor_visit_s:.2f} s"
        print(f"round {n + 1}: server up in {up_s:.2f} s; {cold}")
        for title, s in r["first_visit_s"].items():
            ok = "ok" if s <= (FIRST_LOAD_TARGET_S if title == r["first_page"] else FIRST_VISIT_TARGET_S) else "SLOW"
            print(f"  {title:<22} first visit {s:5.2f} s   repeat {r['repeat_visit_s'].get(title, 0):5.2f} s   {ok}")
    load = os.getloadavg()
    firsts = [r["first_load_s"] for r in rounds]
    visits = [s for r in rounds for t, s in r["first_visit_s"].items() if t != r["first_page"]]
    out = {
        "users": args.users,
        "memories_per_user": args.memories,
        "targets_s": {"first_load": FIRST_LOAD_TARGET_S, "first_visit": FIRST_VISIT_TARGET_S},
        "first_load_s_median": round(statistics.median(firsts), 2),
        "floor_first_load_s_median": round(statistics.median(r["floor_first_load_s"] for r in rounds), 2),
        "floor_first_chart_visit_s_median": round(statistics.median(r["floor_first_chart_visit_s"] for r in rounds), 2),
        "first_load_over_floor_s_median": round(statistics.median(r["first_load_over_floor_s"] for r in rounds), 2),
        "first_visit_s_max": round(max(visits), 2),
        "meets_targets": max(firsts) <= FIRST_LOAD_TARGET_S and max(visits) <= FIRST_VISIT_TARGET_S,
        "rounds": [_rounded(r) for r in rounds],
        "load_avg_1_5_15": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
    }
    print(f"machine load {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} on {os.cpu_count()} cores")
    path = ROOT / "bench" / "results" / "pages_browser.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


def _rounded(r: dict) -> dict:
    return {k: ({t: round(s, 2) for t, s in v.items()} if isinstance(v, dict) else v) for k, v in r.items()} | {
        "first_load_s": round(r["first_load_s"], 2)
    }


if __name__ == "__main__":
    main()
