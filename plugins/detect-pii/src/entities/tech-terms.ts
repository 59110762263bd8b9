import { readFileSync } from 'node:fs'

/**
 * Technology and product words that are never a person, place or organisation
 * in a prompt: programming languages with their aliases from GitHub Linguist
 * (`linguist-languages`, MIT, ~800 languages, extracted to `model/languages.txt`) plus a hand list of products,
 * platforms, formats and acronyms that prompts name all the time. Lower case.
 */
const PRODUCTS = `
golang python java javascript typescript kotlin scala perl php haskell fortran cobol lua dart elixir erlang clojure llm llms gpt gpt-3 gpt-4 gpt-4o chatgpt openai anthropic claude gemini copilot mistral llama bard
api apis sdk sdks ide cli gui ui ux sql nosql json yaml xml html css http https rest restful graphql grpc
aws azure gcp kubernetes k8s docker podman linux unix ubuntu debian fedora centos windows macos ios ipados android
excel powerpoint outlook onedrive sharepoint dax vba power-bi powerbi tableau looker pandas numpy scipy pytorch
tensorflow keras sklearn scikit-learn react angular vue svelte nextjs nuxt node nodejs deno bun django flask
fastapi laravel symfony rails spring springboot hibernate postgres postgresql mysql mariadb sqlite mongodb redis
kafka rabbitmq spark hadoop hive airflow dbt snowflake databricks bigquery redshift elasticsearch kibana grafana
prometheus terraform ansible jenkins git github gitlab bitbucket jira confluence slack trello asana notion figma
canva photoshop illustrator lightroom premiere unity unreal blender autocad solidworks matlab simulink arduino
raspberry bluetooth wifi wi-fi usb hdmi cpu gpu cpus gpus ram ssd hdd nvme ai ml nlp llm rag seo sem crm erp
saas paas iaas iot vpn dns tcp udp ssh ssl tls oauth jwt saml ldap cors csrf xss regex regexp utf-8 ascii
unicode csv tsv pdf docx xlsx png jpeg jpg gif svg mp3 mp4 webp npm pnpm pip conda maven gradle webpack vite
babel eslint prettier jest mocha pytest junit selenium cypress playwright postman swagger openapi
google microsoft apple amazon meta facebook instagram twitter youtube tiktok linkedin whatsapp telegram
wikipedia netflix spotify uber airbnb tesla nvidia intel amd ibm samsung huawei xiaomi iphone ipad macbook
chrome chromium firefox safari vscode vim neovim emacs bash zsh powershell cmd
corona covid covid-19 sars-cov-2 bitcoin ethereum blockchain nft minecraft fortnite roblox pokemon lego
wordpress shopify stripe paypal zapier salesforce hubspot mailchimp zoom skype dropbox
`

/** Technology words: products (never names) and language names (names only when no person or place has them). */
export interface TechTerms {
  readonly products: ReadonlySet<string>
  readonly languages: ReadonlySet<string>
}

/** Language names extracted from `linguist-languages` by `train/build-languages.ts` (from `dist/src/entities/`). */
export const LANGUAGES_URL = new URL('../../../model/languages.txt', import.meta.url)

/** Reads the shipped lists (a few ms). */
export function loadTechTerms(): TechTerms {
  const products = new Set(PRODUCTS.split(/\s+/).filter(Boolean))
  const languages = new Set(readFileSync(LANGUAGES_URL, 'utf8').split('\n').filter(Boolean))
  return { products, languages }
}
