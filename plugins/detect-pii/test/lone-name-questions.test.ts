import { describeClasses } from './helpers.js'

/**
 * One-sentence knowledge questions about a figure named by one word that no name list knows (0.6.7): "Dewar",
 * "Kublai's", "Odinga", "Тесла", "Aristóteles". The people a writer knows go by names the lists have, also
 * inflected ("Ивану", "Марии"), and a word of first person, work or contact keeps any name. The benign prompts
 * are tuning benign prompts of the class; the person prompts were written for these tests.
 */
describeClasses(
  'lone unlisted names in one-sentence knowledge questions (0.6.7)',
  [
    {
      name: 'figures of history and science named by one word (EN, DE, ES, RU)',
      benign: [
        'In what year did Dewar experiment on liquid oxygen?',
        "What interfered with Kublai's second invasion of Japan?",
        'For what nation did Ribault initially claim what is now Jacksonville?',
        'Wann unterzeichneten Kibaki und Odinga eine Vereinbarung zur Bildung einer Regierung?',
        '¿Cuántos elementos creía Aristóteles que formaban la esfera terrestre?',
        'Где жил Тесла большую часть своей жизни?',
      ],
      person: [
        ['What did Sarah say about the report?', ['PERSON:Sarah!']],
        ['When did Dewar join our team?', ['PERSON:Dewar']],
        ['Why did Dewar call me yesterday?', ['PERSON:Dewar']],
        ["What is Dewar's phone number?", ['PERSON:Dewar!']],
        ['Когда Ивану нужно сдать отчёт?', ['PERSON:Ивану']],
        ['Где Марии оставить ключи?', ['PERSON:Марии']],
      ],
    },
  ],
  ['What did Sarah say about the report?', "What is Dewar's phone number?"],
)
