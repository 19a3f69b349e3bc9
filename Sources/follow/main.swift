print("follow: not built yet")
