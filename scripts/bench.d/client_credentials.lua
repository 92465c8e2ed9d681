-- wrk: client_credentials with HTTP Basic (M2M_BASIC = base64 of id:secret).
function init(args)
  basic = os.getenv("M2M_BASIC")
end

function request()
  return wrk.format("POST", "/oauth/token", {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = "Basic " .. basic,
  }, "grant_type=client_credentials&audience=https%3A%2F%2Fapi.bench.example")
end
