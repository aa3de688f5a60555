import { type Language, resolveLanguage } from '../../core/languages.ts';

export { isLanguage, LANGUAGES, type Language, resolveLanguage } from '../../core/languages.ts';

/** Texts of the hosted pages, as data. `{provider}` is replaced with the provider's name. */

export type Messages = {
  widgetTitle: string;
  widgetIntro: string;
  connect: string;
  noProviders: string;
  privacyNote: string;
  expiredTitle: string;
  expiredBody: string;
  usedTitle: string;
  usedBody: string;
  invalidTitle: string;
  invalidBody: string;
  successTitle: string;
  successBody: string;
  failureTitle: string;
  failureBody: string;
  consentTitle: string;
  consentIntro: string;
  consentAccount: string;
  consentAccountHint: string;
  consentScopes: string;
  approve: string;
  deny: string;
  /** Too many attempts from this browser or network (429). */
  busyTitle: string;
  busyBody: string;
  /** Neutral: the page's owner cannot be served now (says nothing about why). */
  unavailableTitle: string;
  unavailableBody: string;
};

export const MESSAGES: Record<Language, Messages> = {
  en: {
    widgetTitle: 'Connect your health data',
    widgetIntro: 'Choose the service you use. You will sign in there and decide what to share.',
    connect: 'Connect {provider}',
    noProviders: 'No services are available right now.',
    privacyNote: 'You can disconnect at any time.',
    expiredTitle: 'This link has expired',
    expiredBody: 'Go back to the app and start again.',
    usedTitle: 'This link has already been used',
    usedBody: 'Your connection is complete. Go back to the app to connect another service.',
    invalidTitle: 'This sign-in link is not valid',
    invalidBody: 'It may have been used already or have expired. Go back to the app and start again.',
    successTitle: 'Connected',
    successBody: 'You can close this window and return to the app.',
    failureTitle: 'Not connected',
    failureBody: 'The connection was not completed. You can close this window and try again.',
    consentTitle: '{provider}: allow access?',
    consentIntro: 'This is a test service. It shares generated sample data, never real health data.',
    consentAccount: 'Sandbox account',
    consentAccountHint: 'Use the same account again to reconnect it.',
    consentScopes: 'Requested access',
    approve: 'Approve',
    deny: 'Deny',
    busyTitle: 'Too many attempts',
    busyBody: 'Please wait a few minutes, then try again.',
    unavailableTitle: 'This page is not available',
    unavailableBody: 'Go back to the app. If this continues, contact the app’s support.',
  },
  de: {
    widgetTitle: 'Gesundheitsdaten verbinden',
    widgetIntro:
      'Wählen Sie den Dienst, den Sie nutzen. Dort melden Sie sich an und entscheiden, was Sie teilen.',
    connect: '{provider} verbinden',
    noProviders: 'Derzeit sind keine Dienste verfügbar.',
    privacyNote: 'Sie können die Verbindung jederzeit trennen.',
    expiredTitle: 'Dieser Link ist abgelaufen',
    expiredBody: 'Kehren Sie zur App zurück und beginnen Sie erneut.',
    usedTitle: 'Dieser Link wurde bereits verwendet',
    usedBody:
      'Ihre Verbindung ist hergestellt. Kehren Sie zur App zurück, um einen weiteren Dienst zu verbinden.',
    invalidTitle: 'Dieser Anmeldelink ist ungültig',
    invalidBody:
      'Er wurde möglicherweise bereits verwendet oder ist abgelaufen. Kehren Sie zur App zurück und beginnen Sie erneut.',
    successTitle: 'Verbunden',
    successBody: 'Sie können dieses Fenster schließen und zur App zurückkehren.',
    failureTitle: 'Nicht verbunden',
    failureBody:
      'Die Verbindung wurde nicht hergestellt. Sie können dieses Fenster schließen und es erneut versuchen.',
    consentTitle: '{provider}: Zugriff erlauben?',
    consentIntro: 'Dies ist ein Testdienst. Er teilt erzeugte Beispieldaten, niemals echte Gesundheitsdaten.',
    consentAccount: 'Sandbox-Konto',
    consentAccountHint: 'Verwenden Sie dasselbe Konto erneut, um es neu zu verbinden.',
    consentScopes: 'Angeforderter Zugriff',
    approve: 'Erlauben',
    deny: 'Ablehnen',
    busyTitle: 'Zu viele Versuche',
    busyBody: 'Bitte warten Sie einige Minuten und versuchen Sie es dann erneut.',
    unavailableTitle: 'Diese Seite ist nicht verfügbar',
    unavailableBody:
      'Kehren Sie zur App zurück. Wenn das Problem bestehen bleibt, wenden Sie sich an den Support der App.',
  },
  fr: {
    widgetTitle: 'Connectez vos données de santé',
    widgetIntro:
      'Choisissez le service que vous utilisez. Vous vous y connecterez et choisirez ce que vous partagez.',
    connect: 'Connecter {provider}',
    noProviders: 'Aucun service n’est disponible pour le moment.',
    privacyNote: 'Vous pouvez vous déconnecter à tout moment.',
    expiredTitle: 'Ce lien a expiré',
    expiredBody: 'Retournez dans l’application et recommencez.',
    usedTitle: 'Ce lien a déjà été utilisé',
    usedBody: 'Votre connexion est établie. Retournez dans l’application pour connecter un autre service.',
    invalidTitle: 'Ce lien de connexion n’est pas valide',
    invalidBody: 'Il a peut-être déjà été utilisé ou a expiré. Retournez dans l’application et recommencez.',
    successTitle: 'Connecté',
    successBody: 'Vous pouvez fermer cette fenêtre et revenir à l’application.',
    failureTitle: 'Non connecté',
    failureBody: 'La connexion n’a pas abouti. Vous pouvez fermer cette fenêtre et réessayer.',
    consentTitle: '{provider} : autoriser l’accès ?',
    consentIntro:
      'Ceci est un service de test. Il partage des données d’exemple générées, jamais de vraies données de santé.',
    consentAccount: 'Compte sandbox',
    consentAccountHint: 'Utilisez le même compte pour le reconnecter.',
    consentScopes: 'Accès demandé',
    approve: 'Autoriser',
    deny: 'Refuser',
    busyTitle: 'Trop de tentatives',
    busyBody: 'Veuillez patienter quelques minutes, puis réessayez.',
    unavailableTitle: 'Cette page n’est pas disponible',
    unavailableBody:
      'Retournez dans l’application. Si le problème persiste, contactez l’assistance de l’application.',
  },
  es: {
    widgetTitle: 'Conecta tus datos de salud',
    widgetIntro: 'Elige el servicio que usas. Iniciarás sesión allí y decidirás qué compartir.',
    connect: 'Conectar {provider}',
    noProviders: 'No hay servicios disponibles en este momento.',
    privacyNote: 'Puedes desconectarte en cualquier momento.',
    expiredTitle: 'Este enlace ha caducado',
    expiredBody: 'Vuelve a la aplicación y empieza de nuevo.',
    usedTitle: 'Este enlace ya se ha utilizado',
    usedBody: 'Tu conexión está completa. Vuelve a la aplicación para conectar otro servicio.',
    invalidTitle: 'Este enlace de inicio de sesión no es válido',
    invalidBody:
      'Puede que ya se haya utilizado o que haya caducado. Vuelve a la aplicación y empieza de nuevo.',
    successTitle: 'Conectado',
    successBody: 'Puedes cerrar esta ventana y volver a la aplicación.',
    failureTitle: 'No conectado',
    failureBody: 'La conexión no se completó. Puedes cerrar esta ventana e intentarlo de nuevo.',
    consentTitle: '{provider}: ¿permitir el acceso?',
    consentIntro:
      'Este es un servicio de prueba. Comparte datos de ejemplo generados, nunca datos de salud reales.',
    consentAccount: 'Cuenta sandbox',
    consentAccountHint: 'Usa la misma cuenta para volver a conectarla.',
    consentScopes: 'Acceso solicitado',
    approve: 'Permitir',
    deny: 'Denegar',
    busyTitle: 'Demasiados intentos',
    busyBody: 'Espera unos minutos y vuelve a intentarlo.',
    unavailableTitle: 'Esta página no está disponible',
    unavailableBody:
      'Vuelve a la aplicación. Si el problema continúa, contacta con el soporte de la aplicación.',
  },
  it: {
    widgetTitle: 'Collega i tuoi dati sulla salute',
    widgetIntro: 'Scegli il servizio che usi. Accederai lì e deciderai cosa condividere.',
    connect: 'Collega {provider}',
    noProviders: 'Al momento non ci sono servizi disponibili.',
    privacyNote: 'Puoi scollegarti in qualsiasi momento.',
    expiredTitle: 'Questo link è scaduto',
    expiredBody: 'Torna all’app e ricomincia.',
    usedTitle: 'Questo link è già stato utilizzato',
    usedBody: 'Il collegamento è completo. Torna all’app per collegare un altro servizio.',
    invalidTitle: 'Questo link di accesso non è valido',
    invalidBody: 'Potrebbe essere già stato utilizzato o essere scaduto. Torna all’app e ricomincia.',
    successTitle: 'Collegato',
    successBody: 'Puoi chiudere questa finestra e tornare all’app.',
    failureTitle: 'Non collegato',
    failureBody: 'Il collegamento non è stato completato. Puoi chiudere questa finestra e riprovare.',
    consentTitle: '{provider}: consentire l’accesso?',
    consentIntro:
      'Questo è un servizio di prova. Condivide dati di esempio generati, mai dati sanitari reali.',
    consentAccount: 'Account sandbox',
    consentAccountHint: 'Usa lo stesso account per ricollegarlo.',
    consentScopes: 'Accesso richiesto',
    approve: 'Consenti',
    deny: 'Rifiuta',
    busyTitle: 'Troppi tentativi',
    busyBody: 'Attendi qualche minuto, poi riprova.',
    unavailableTitle: 'Questa pagina non è disponibile',
    unavailableBody: 'Torna all’app. Se il problema persiste, contatta l’assistenza dell’app.',
  },
  nl: {
    widgetTitle: 'Koppel je gezondheidsgegevens',
    widgetIntro: 'Kies de dienst die je gebruikt. Je logt daar in en bepaalt wat je deelt.',
    connect: '{provider} koppelen',
    noProviders: 'Er zijn op dit moment geen diensten beschikbaar.',
    privacyNote: 'Je kunt de koppeling altijd verbreken.',
    expiredTitle: 'Deze link is verlopen',
    expiredBody: 'Ga terug naar de app en begin opnieuw.',
    usedTitle: 'Deze link is al gebruikt',
    usedBody: 'Je koppeling is voltooid. Ga terug naar de app om nog een dienst te koppelen.',
    invalidTitle: 'Deze inloglink is niet geldig',
    invalidBody: 'Hij is misschien al gebruikt of verlopen. Ga terug naar de app en begin opnieuw.',
    successTitle: 'Gekoppeld',
    successBody: 'Je kunt dit venster sluiten en teruggaan naar de app.',
    failureTitle: 'Niet gekoppeld',
    failureBody: 'De koppeling is niet voltooid. Je kunt dit venster sluiten en het opnieuw proberen.',
    consentTitle: '{provider}: toegang toestaan?',
    consentIntro:
      'Dit is een testdienst. Hij deelt gegenereerde voorbeeldgegevens, nooit echte gezondheidsgegevens.',
    consentAccount: 'Sandbox-account',
    consentAccountHint: 'Gebruik hetzelfde account om het opnieuw te koppelen.',
    consentScopes: 'Gevraagde toegang',
    approve: 'Toestaan',
    deny: 'Weigeren',
    busyTitle: 'Te veel pogingen',
    busyBody: 'Wacht een paar minuten en probeer het dan opnieuw.',
    unavailableTitle: 'Deze pagina is niet beschikbaar',
    unavailableBody:
      'Ga terug naar de app. Blijft dit gebeuren, neem dan contact op met de support van de app.',
  },
  pt: {
    widgetTitle: 'Conecte seus dados de saúde',
    widgetIntro: 'Escolha o serviço que você usa. Você fará login nele e decidirá o que compartilhar.',
    connect: 'Conectar {provider}',
    noProviders: 'Nenhum serviço está disponível no momento.',
    privacyNote: 'Você pode se desconectar a qualquer momento.',
    expiredTitle: 'Este link expirou',
    expiredBody: 'Volte ao aplicativo e comece novamente.',
    usedTitle: 'Este link já foi usado',
    usedBody: 'Sua conexão foi concluída. Volte ao aplicativo para conectar outro serviço.',
    invalidTitle: 'Este link de login não é válido',
    invalidBody: 'Ele pode já ter sido usado ou ter expirado. Volte ao aplicativo e comece novamente.',
    successTitle: 'Conectado',
    successBody: 'Você pode fechar esta janela e voltar ao aplicativo.',
    failureTitle: 'Não conectado',
    failureBody: 'A conexão não foi concluída. Você pode fechar esta janela e tentar novamente.',
    consentTitle: '{provider}: permitir acesso?',
    consentIntro:
      'Este é um serviço de teste. Ele compartilha dados de exemplo gerados, nunca dados de saúde reais.',
    consentAccount: 'Conta sandbox',
    consentAccountHint: 'Use a mesma conta para reconectá-la.',
    consentScopes: 'Acesso solicitado',
    approve: 'Permitir',
    deny: 'Recusar',
    busyTitle: 'Muitas tentativas',
    busyBody: 'Aguarde alguns minutos e tente novamente.',
    unavailableTitle: 'Esta página não está disponível',
    unavailableBody:
      'Volte ao aplicativo. Se o problema continuar, entre em contato com o suporte do aplicativo.',
  },
  ja: {
    widgetTitle: '健康データを連携する',
    widgetIntro: 'ご利用のサービスを選んでください。そのサービスにログインし、共有する内容を選べます。',
    connect: '{provider} と連携',
    noProviders: '現在利用できるサービスはありません。',
    privacyNote: '連携はいつでも解除できます。',
    expiredTitle: 'このリンクは有効期限が切れています',
    expiredBody: 'アプリに戻って、もう一度やり直してください。',
    usedTitle: 'このリンクはすでに使用されています',
    usedBody: '連携は完了しています。別のサービスを連携するにはアプリに戻ってください。',
    invalidTitle: 'このログインリンクは無効です',
    invalidBody:
      'すでに使用されたか、有効期限が切れている可能性があります。アプリに戻って、もう一度やり直してください。',
    successTitle: '連携しました',
    successBody: 'このウィンドウを閉じて、アプリに戻ってください。',
    failureTitle: '連携できませんでした',
    failureBody: '連携は完了しませんでした。このウィンドウを閉じて、もう一度お試しください。',
    consentTitle: '{provider}：アクセスを許可しますか？',
    consentIntro:
      'これはテスト用のサービスです。生成されたサンプルデータのみを共有し、実際の健康データは共有しません。',
    consentAccount: 'サンドボックスアカウント',
    consentAccountHint: '再連携するには同じアカウントを使用してください。',
    consentScopes: '要求されているアクセス',
    approve: '許可する',
    deny: '拒否する',
    busyTitle: '試行回数が多すぎます',
    busyBody: '数分待ってから、もう一度お試しください。',
    unavailableTitle: 'このページは利用できません',
    unavailableBody: 'アプリに戻ってください。問題が続く場合は、アプリのサポートにお問い合わせください。',
  },
};

export function messagesFor(language: string | null | undefined): Messages {
  return MESSAGES[resolveLanguage(language)];
}

export function fill(template: string, values: { provider?: string }): string {
  return template.replace('{provider}', values.provider ?? '');
}
