-- wrk scenarios for scripts/bench.py: one script, the scenario named by the first argument.
--
--   wrk -t2 -c32 -d8s --latency -s bench/wrk/scenarios.lua http://127.0.0.1:PORT -- \
--       SCENARIO [DATA.lua [ROUND | LIMIT]]
--
-- SCENARIO is one of bare, create_match, post_round, get_match, get_sheet, put_round, mix,
-- page_rounds. DATA.lua is a file scripts/bench.py writes:
-- `return {rounds = K, matches = {{id, token}, ...}}`, the matches to spread the load over.
-- ROUND is the round number put_round corrects; LIMIT the page size page_rounds asks for.
--
-- Every request is built once, in init(), and request() only hands out the next prebuilt
-- string, so wrk spends next to nothing per request. response() tallies every status code
-- (wrk itself counts only >= 400), and done() prints one BENCH_RESULT line of JSON for the
-- harness. Each thread starts at its own offset in the list, so the two threads do not walk
-- the same matches in step.

local BODIES = {
  "[2,-1,-1]", "[-1,2,-1]", "[-1,-1,2]", "[4,-2,-2]",
  "[-2,4,-2]", "[-2,-2,4]", "[-6,3,3]", "[3,3,-6]",
}
local CREATE_BODY = '{"game":"asszorti","players":["Anna","Berta","Csaba"]}'
-- The realistic mix, per 100 requests: mostly reading the match, some rounds, some sheets,
-- a few corrections and a few new matches.
local MIX = {
  {"get_match", 70}, {"post_round", 15}, {"get_sheet", 8}, {"put_round", 5}, {"create_match", 2},
}
local MIX_LENGTH = 2000 -- prebuilt requests per thread for the mix

-- main Lua state ---------------------------------------------------------------------------

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  threads[#threads + 1] = thread
end

-- thread Lua states ------------------------------------------------------------------------

local requests, kinds = {}, {}
local cursor = 1
status_counts = {}
sent_counts = {}
-- page_rounds: the first page of the match's rounds, and the next pages still to fetch
local first_page, page_headers
local next_pages = {}

local function round_body(k)
  return '{"type":"asszorti_amounts","amounts":' .. BODIES[(k % #BODIES) + 1] .. "}"
end

local function headers(token, with_body)
  local h = {["Authorization"] = "Bearer " .. token}
  if with_body then
    h["Content-Type"] = "application/json"
  end
  return h
end

local function build(kind, match, k, round)
  if kind == "create_match" then
    return wrk.format("POST", "/v1/matches", {["Content-Type"] = "application/json"}, CREATE_BODY)
  end
  local id, token = match[1], match[2]
  if kind == "get_match" then
    return wrk.format("GET", "/v1/matches/" .. id, headers(token, false))
  elseif kind == "get_sheet" then
    return wrk.format("GET", "/v1/matches/" .. id .. "/sheet", headers(token, false))
  elseif kind == "post_round" then
    return wrk.format("POST", "/v1/matches/" .. id .. "/rounds", headers(token, true), round_body(k))
  elseif kind == "put_round" then
    local path = "/v1/matches/" .. id .. "/rounds/" .. round
    return wrk.format("PUT", path, headers(token, true), round_body(k))
  end
  error("unknown request kind: " .. tostring(kind))
end

-- The next page a rounds page links to, as a path: the Link header's rel="next", else the
-- body's "next"; nil on the last page, or from a server that answers every round at once.
local function next_link(headers, body)
  local link = headers["link"] or headers["Link"]
  local url = link and link:match('<([^>]+)>%s*;%s*rel="?next"?')
  if not url and body then
    local at = body:find('"next":', 1, true)
    url = at and body:match('^"next":%s*"([^"]+)"', at)
  end
  return url and (url:gsub("^%a+://[^/]+", ""))
end

local function load_matches(path)
  local data = dofile(path)
  assert(data and data.matches and #data.matches > 0, "no matches in " .. tostring(path))
  return data
end

function init(args)
  local scenario = args[1]
  local index = thread_index or 0
  if scenario == "bare" then
    requests[1] = wrk.format("GET", "/bare")
    kinds[1] = "bare"
  elseif scenario == "create_match" then
    requests[1] = build("create_match")
    kinds[1] = "create_match"
  elseif scenario == "page_rounds" then
    -- Clients paging through the first match's rounds: a response's next page is the next
    -- request of whichever connection of the thread asks first, and a connection that finds
    -- none starts a new walk, so there are always as many walks as connections.
    local data = load_matches(args[2])
    local match = data.matches[1]
    first_page = "/v1/matches/" .. match[1] .. "/rounds?limit=" .. (args[3] or "100")
    page_headers = headers(match[2], false)
  elseif scenario == "mix" then
    local data = load_matches(args[2])
    local round = tonumber(args[3]) or data.rounds
    local total = 0
    for _, entry in ipairs(MIX) do
      total = total + entry[2]
    end
    math.randomseed(1000 + index) -- reproducible, different per thread
    for k = 1, MIX_LENGTH do
      local pick, kind = math.random(total), nil
      for _, entry in ipairs(MIX) do
        if pick <= entry[2] then
          kind = entry[1]
          break
        end
        pick = pick - entry[2]
      end
      local match = data.matches[((k + index * 997) % #data.matches) + 1]
      requests[k] = build(kind, match, k + index, round)
      kinds[k] = kind
    end
  else
    local data = load_matches(args[2])
    local round = tonumber(args[3]) or data.rounds
    local n = #data.matches
    -- every match once with every body, in a cycle: match k, then k+1, ...
    local length = n * ((scenario == "post_round" or scenario == "put_round") and #BODIES or 1)
    for k = 0, length - 1 do
      requests[k + 1] = build(scenario, data.matches[(k % n) + 1], math.floor(k / n) + index, round)
      kinds[k + 1] = scenario
    end
  end
  if #requests > 0 then -- page_rounds builds its requests as it goes
    cursor = (math.floor(#requests * index / 2) % #requests) + 1
  end
end

function request()
  if first_page then
    local path = table.remove(next_pages, 1)
    local kind = path and "next_page" or "first_page"
    sent_counts[kind] = (sent_counts[kind] or 0) + 1
    return wrk.format("GET", path or first_page, page_headers)
  end
  local k = cursor
  cursor = (cursor % #requests) + 1
  local kind = kinds[k]
  sent_counts[kind] = (sent_counts[kind] or 0) + 1
  return requests[k]
end

function response(status, headers, body)
  status_counts[status] = (status_counts[status] or 0) + 1
  if first_page and status == 200 then
    next_pages[#next_pages + 1] = next_link(headers, body) -- nil appends nothing
  end
end

-- back in the main state -------------------------------------------------------------------

local function add_into(into, from)
  for key, count in pairs(from or {}) do
    key = tostring(key)
    into[key] = (into[key] or 0) + count
  end
end

local function json_object(map)
  local parts = {}
  for key, count in pairs(map) do
    parts[#parts + 1] = string.format('"%s": %d', key, count)
  end
  table.sort(parts)
  return "{" .. table.concat(parts, ", ") .. "}"
end

function done(summary, latency, _)
  local statuses, sent = {}, {}
  for _, thread in ipairs(threads) do
    add_into(statuses, thread:get("status_counts"))
    add_into(sent, thread:get("sent_counts"))
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests": %d, "duration_us": %d, "statuses": %s, "sent": %s, '
      .. '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, '
      .. '"latency_us": {"p50": %d, "p99": %d, "max": %d}}\n',
    summary.requests, summary.duration, json_object(statuses), json_object(sent),
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max
  ))
end
