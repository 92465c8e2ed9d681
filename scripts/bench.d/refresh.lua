-- wrk: rotates refresh tokens. Each thread owns a share of the pool; every response's
-- successor replaces the token it used, so each request presents a live token (rotation,
-- not the retry path). Environment: POOL (token file) and CLIENT (a public client: JSON body
-- with client_id, as Auth0.swift sends it), or BASIC (base64 id:secret: a form body with HTTP
-- Basic, for a peer's confidential client) and TOKEN_PATH (default /oauth/token). REUSE=1: a
-- server that does not rotate; every request presents the pool's first token.
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

function init(args)
  queue = {}
  local threads = tonumber(os.getenv("WRK_THREADS") or "2")
  local index = 0
  reuse = os.getenv("REUSE") == "1"
  for line in io.lines(os.getenv("POOL")) do
    -- A reused token serves every thread; a rotated one belongs to one.
    if reuse or index % threads == id then table.insert(queue, line) end
    index = index + 1
  end
  client = os.getenv("CLIENT")
  basic = os.getenv("BASIC")
  path = os.getenv("TOKEN_PATH") or "/oauth/token"
end

function request()
  local token = reuse and queue[1] or table.remove(queue, 1)
  if token == nil then token = "exhausted" end
  if basic and basic ~= "" then
    return wrk.format("POST", path, { ["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = "Basic " .. basic },
                      "grant_type=refresh_token&refresh_token=" .. token)
  end
  local body = '{"grant_type":"refresh_token","client_id":"' .. client .. '","refresh_token":"' .. token .. '"}'
  return wrk.format("POST", path, { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  local successor = string.match(body, '"refresh_token":"([^"]+)"')
  if successor and not reuse then table.insert(queue, successor) end
end
