-- wrk: GET /userinfo with real access tokens from POOL, round robin.
function init(args)
  tokens = {}
  for line in io.lines(os.getenv("POOL")) do table.insert(tokens, line) end
  next_index = 1
end

function request()
  local token = tokens[next_index]
  next_index = next_index % #tokens + 1
  return wrk.format("GET", "/userinfo", { ["Authorization"] = "Bearer " .. token })
end
