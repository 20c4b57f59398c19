// fixture: never run
