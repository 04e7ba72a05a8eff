"""``flexmbd view --serve``: the viewer page from a small local HTTP server that follows a
results file while a run writes it.

The page polls ``data?since=N`` every second; the server re-reads the results file when it
changed (the writer flushes every ``chunk`` steps or every few seconds, see
:class:`flexmbd.io.results_h5.ResultWriter`) and answers with the frames after N as base64
typed arrays, the same layout as the page's own, with the plotted outputs at those frames.  Only 127.0.0.1 is served.
"""
from __future__ import annotations

import json
import os
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import numpy as np

from .page import MAX_FRAMES, frame_data, page_data, render, series_data


class _Follower:
    """The results file and the rows the page already has."""

    def __init__(self, path: str, plot=None, max_frames: int = MAX_FRAMES):
        from ..io.results_h5 import load_result

        self.path, self.load = path, load_result
        self.lock = threading.Lock()
        res = load_result(path)
        self.data = page_data(res, plot=plot, max_frames=max_frames, live=True)
        self.rows = list(self.data["rows"])
        self.series = [s["name"] for s in self.data["series"]]
        self.every = (self.rows[1] - self.rows[0]) if len(self.rows) > 1 else 1
        self.mtime = os.path.getmtime(path)
        self.page = render(self.data).encode("utf-8")

    def since(self, n: int) -> dict:
        """Frames after the page's first ``n`` (none when the file did not grow)."""
        with self.lock:
            try:
                mt = os.path.getmtime(self.path)
                if mt != self.mtime:
                    self.mtime = mt
                    res = self.load(self.path)
                    last = self.rows[-1]
                    new = list(range(last + self.every, len(res.t), self.every))
                    if len(res.t) - 1 > last and (not new or new[-1] != len(res.t) - 1):
                        new.append(len(res.t) - 1)
                    if new:
                        self.rows += new
                        self._res = res
            except Exception:            # noqa: BLE001  (a file mid-write: try again next poll)
                pass
            n = max(0, min(int(n), len(self.rows)))
            new = self.rows[n:]
            if not new or not hasattr(self, "_res"):
                return {"nf": n}
            out = frame_data(self._res, np.array(new))
            try:                         # the plotted outputs grow with the picture
                out["series"] = [s["data"] for s in series_data(self._res, self.series, np.array(new))]
            except Exception:            # noqa: BLE001  (an output the partial file cannot give: keep the plot)
                pass
            out.update(nf=len(self.rows), info=f"{len(self.rows)} frames, following {self.path} "
                                               f"(status {self._res.status})")
            return out


def serve(path: str, port: int = 0, open_browser: bool = True, plot=None, max_frames: int = MAX_FRAMES,
          ready=None) -> None:
    """Serve the page of ``path`` on 127.0.0.1:``port`` (0: a free one) until interrupted."""
    follower = _Follower(path, plot=plot, max_frames=max_frames)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):   # quiet
            pass

        def do_GET(self):   # noqa: N802
            u = urlparse(self.path)
            if u.path in ("/", "/index.html"):
                body, ctype = follower.page, "text/html; charset=utf-8"
            elif u.path == "/data":
                since = int((parse_qs(u.query).get("since") or ["0"])[0])
                body, ctype = json.dumps(follower.since(since)).encode(), "application/json"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    print(f"serving {path} at {url} (Ctrl-C to stop)", flush=True)
    if ready is not None:
        ready(url, httpd)
    if open_browser:
        webbrowser.open(url)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
