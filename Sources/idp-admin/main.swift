print("idp-admin")
