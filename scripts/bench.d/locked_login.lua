-- wrk: one address hammering one locked account with the password-realm grant (wrong password),
-- as a credential-stuffing script would. Set CLIENT (an app allowing the grant) and USERNAME.
function init(args)
  body = '{"grant_type":"http://auth0.com/oauth/grant-type/password-realm","client_id":"' .. os.getenv("CLIENT")
    .. '","username":"' .. os.getenv("USERNAME") .. '","password":"not the password","realm":"Username-Password-Authentication"}'
end

function request()
  return wrk.format("POST", "/oauth/token", { ["Content-Type"] = "application/json" }, body)
end
