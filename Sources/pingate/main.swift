print("pingate: not yet")
