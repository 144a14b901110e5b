"""The reviewer's page (`factledger ui`). Needs the `ui` extra: fastapi, uvicorn, jinja2, altair."""
