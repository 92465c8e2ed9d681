print("idp")
