/** Block code (429) and finding type: the call's estimate would exceed a budget. */
export const BUDGET_EXCEEDED = 'budget_exceeded'

/** Block code (403, with `unknown_model: block`) and finding type: no price is known for the model. */
export const MODEL_PRICE_UNKNOWN = 'model_price_unknown'
