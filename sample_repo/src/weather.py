"""A tiny forecast printer (sample code for the APC sample project)."""


def forecast(city: str) -> str:
    return f"{city}: sunny"
