print("usage")
