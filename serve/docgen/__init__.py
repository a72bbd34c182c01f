"""Documentation written from the declarations by `alpha-results reference`: docs/reference.md (with
docs/llms.txt and the Vocabulary) and the dashboard's generated labels."""
