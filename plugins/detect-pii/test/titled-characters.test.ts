import { describeClasses } from './helpers.js'

/**
 * Titled characters of worked problems are no personal data (0.6.7), like the lone given names of 0.6.5: "Mr.
 * Trent", "Mrs. Thompson", "Dr. Wertz" of a quantity question with numbers. The same shapes keep the name when a
 * word says the person is real and known to the writer (first person, a colleague or client, an appointment, a
 * hiring, a debt, "today"), and outside worked problems (a story or role-play request, a plain sentence).
 * Written for these tests after the classes of the tuning benign prompts.
 */
describeClasses(
  'titled characters of worked problems (0.6.7)',
  [
    {
      name: 'titled characters of a quantity problem (EN, DE, ES)',
      benign: [
        'Mr. Trent sells 20 shirts a day. How many shirts does Mr. Trent sell in 5 days?',
        'Mrs. Thompson bought 3 chickens for $3 each. She paid $15 in total. How much did the potatoes cost?',
        'Miss Davis gave 15 pencils to each of the 10 groups in her class. How many pencils does she have left if she had 170?',
        'Her biology teacher, Mr. Stone, buys 2 dozen cookies and Meena sells 5 dozen. How many cookies are left?',
        'Frau Becker verkauft 12 Kuchen am Tag. Wie viele Kuchen verkauft sie in 5 Tagen?',
        'Dr. Wertz hat 60 Schüler und 5 Lehrer. Wie viele Schüler hat jeder Lehrer?',
        'El Sr. Pérez compra 3 camisas a 20 euros. ¿Cuánto paga en total?',
      ],
      person: [
        [
          'Mr. Trent from our office sells 20 licences a day. How many does he sell in 5 days?',
          ['PERSON:Trent!'],
        ],
        [
          'Dr. Berg was hired 3 weeks ago. How many days of leave does Dr. Berg have after 2 months?',
          ['PERSON:Berg!', 'PERSON:Berg!'],
        ],
        [
          'Mrs. Keller has an appointment at 3 pm and 2 more after it. How many appointments does Mrs. Keller have today?',
          ['PERSON:Keller!', 'PERSON:Keller!'],
        ],
        [
          'Mr. Trent owes 300 dollars on 3 invoices. How much does Mr. Trent still owe if he pays 120?',
          ['PERSON:Trent!', 'PERSON:Trent!'],
        ],
        [
          'You are a private investigator. A client, Mrs. Johnson, says 3 of her 10 letters are missing. How many are left?',
          ['PERSON:Johnson!'],
        ],
        [
          'Frau Becker aus meinem Team hat 12 Tickets gelöst. Wie viele Tickets löst sie in 5 Tagen?',
          ['PERSON:Becker!'],
        ],
        ['Mr. Pérez llamó a mi oficina 3 veces. ¿Cuántas veces más llamará?', ['PERSON:Pérez!']],
        ['Write a story about Mr. Trent, who sells 20 shirts a day.', ['PERSON:Trent!']],
        ['La señora García vende pasteles en Madrid.', ['PERSON:García!']],
      ],
    },
  ],
  [
    'Dr. Berg was hired 3 weeks ago. How many days of leave does Dr. Berg have after 2 months?',
    'Mr. Trent from our office sells 20 licences a day. How many does he sell in 5 days?',
  ],
)
