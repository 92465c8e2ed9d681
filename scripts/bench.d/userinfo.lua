-- wrk: GET /userinfo (or USERINFO_PATH, a peer's) with real access tokens from POOL, round robin.
function init(args)
  path = os.getenv("USERINFO_PATH") or "/userinfo"
  tokens = {}
  for line in io.lines(os.getenv("POOL")) do table.insert(tokens, line) end
  next_index = 1
end

function request()
  local token = tokens[next_index]
  next_index = next_index % #tokens + 1
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. token })
end
