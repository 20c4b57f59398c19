print("fixture: never run")
