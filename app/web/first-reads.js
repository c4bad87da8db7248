// The open table's first reads, asked for while the page is still arriving. A classic
// script (async: it never holds the page up), loaded before the modules: on a slow phone
// compiling the modules takes most of a warm load, and the reads travel meanwhile instead
// of after it. api.js takes them (takeFirstReads); the address and the stored key are read
// as app.js and store.js do.
(function () {
  if (self.firstReads === null) return; // too late: the page has read for itself
  const table = /^#\/m\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash); // not a join link
  if (!table) return;
  const id = table[1];
  let token = null;
  try {
    const entry = JSON.parse(localStorage.getItem("squarescores.matches") || "{}")[id];
    token = entry && entry.token;
  } catch {
    return;
  }
  if (!token) return;
  const read = (path) => {
    const answer = fetch(path, {
      headers: { Accept: "application/json", Authorization: `Bearer ${token}` },
      cache: "no-store",
      credentials: "omit",
    });
    answer.catch(() => {}); // the taker sees a failure; untaken, it is nobody's
    return answer;
  };
  const base = `/v1/matches/${encodeURIComponent(id)}`;
  self.firstReads = { id, token, match: read(base), sheet: read(`${base}/sheet`) };
})();
