// The vocabulary registry's terms as the dashboard reads them: each served figure name's label,
// unit and basis (TERMS), the names that are positions, not figures (GENERIC_KEYS), and the currency
// of the unit base_currency (BOOK_CURRENCY, schemas.conventions). Their data is
// `terms.js`, which the server makes from schemas/vocabulary.py when it starts
// (schemas.vocabulary.as_javascript): no copy of the registry is kept beside it.
// SCREEN_TERMS: each screener row field's term, as its declaration (schemas/bodies/rows.py ScreenRow) names it.
export { BOOK_CURRENCY, GENERIC_KEYS, SCREEN_TERMS, TERMS } from "./terms.js";
