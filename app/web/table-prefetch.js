// The open table's first reads, asked for while the page is still arriving. A classic
// script (async: it never holds the page up), loaded before the modules: on a slow phone
// compiling the modules takes most of a warm load, and the reads travel meanwhile instead
// of after it. api.js takes them (takeFirstReads, takeFirstMe); the address and the stored
// key are read as app.js and store.js do.
//
// A join link (#/m/{id}?t={token}) is read with its own key only on a phone that holds
// none for the table, and then its role is asked too (/me), as the page would: a phone
// that holds keys acts with the strongest, which only the page knows.
(function () {
  if (self.firstReads === null) return; // too late: the page has read for itself
  const table = /^#\/m\/([A-Za-z0-9_-]{1,64})(?:\?(.*))?$/.exec(location.hash);
  if (!table) return;
  const id = table[1];
  const link = table[2] === undefined ? null : new URLSearchParams(table[2]).get("t");
  let entry = null;
  try {
    entry = JSON.parse(localStorage.getItem("squarescores.matches") || "{}")[id];
  } catch {
    return;
  }
  if (link && entry) return;
  const token = link || (entry && entry.token);
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
  const me = link ? read(`${base}/me`) : null;
  self.firstReads = { id, token, me, match: read(base), sheet: read(`${base}/sheet`) };
})();
