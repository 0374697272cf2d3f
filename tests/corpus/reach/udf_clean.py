"""String cleaning: normalize names and emails."""
from looplift import dataflow


@dataflow
def clean_email(email: str) -> str:
    e = email.strip().lower()
    if "@" not in e:
        return ""
    user, domain = e.split("@")[0], e.split("@")[1]
    return f"{user.replace('.', '')}@{domain}"
