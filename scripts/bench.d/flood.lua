-- wrk: anonymous GET /authorize, each with a fresh random 200-character state, as a flood of
-- unauthenticated sign-in starts would send it (no cookies: every request is a new visitor).
-- Set CLIENT (a client id) and REDIRECT_URI (already percent-encoded) in the environment.
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

function init(args)
  math.randomseed(os.time() * 1000 + id)
  prefix = "/authorize?client_id=" .. os.getenv("CLIENT") .. "&redirect_uri=" .. os.getenv("REDIRECT_URI")
    .. "&response_type=code&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state="
end

function request()
  local state = {}
  for i = 1, 200 do
    local n = math.random(1, 64)
    state[i] = alphabet:sub(n, n)
  end
  return wrk.format("GET", prefix .. table.concat(state))
end
